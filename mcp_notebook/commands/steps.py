"""One piece of logic, run blocking or awaited, the way the runtime's operations are
(runtime/steps.py: an ``async def`` whose blocking form never suspends, run by ``drive``).

Waiting for a call, asking a question and running a magic each exist for a blocking cell
and for an awaiting one (where ipykernel 7 delivers widget clicks). Their logic is written
once, as an ``async def`` that takes a ``Taker`` and awaits ``taker.take(step)`` wherever it
waits for a ``Step``; an interrupt (KeyboardInterrupt in a blocking step, CancelledError in
an awaited one) is raised there. ``BLOCKING`` takes a step with ``run()`` and never
suspends, so ``runtime.steps.drive`` runs the logic to its end on this thread; with
``AWAITING`` (``arun()``) the logic is simply awaited.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Protocol, TypeVar

__all__ = ["AWAITING", "BLOCKING", "Step", "Taker"]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Step(Protocol[T_co]):
    """Something to wait for: ``run()`` blocks for it, ``arun()`` awaits it."""

    def run(self) -> T_co: ...

    def arun(self) -> Awaitable[T_co]: ...


class Taker(Protocol):
    """How logic waits for its steps; ``awaiting``: the cell awaits (what it may show
    depends on it: a kernel's clicks)."""

    @property
    def awaiting(self) -> bool: ...

    async def take(self, step: Step[T]) -> T: ...


class BlockingTaker:
    """Blocks in each step, on this thread: run the logic with ``drive``."""

    awaiting = False

    def __repr__(self) -> str:
        return "<BlockingTaker>"

    async def take(self, step: Step[T]) -> T:
        return step.run()


class AwaitingTaker:
    """Awaits each step in the awaiting task."""

    awaiting = True

    def __repr__(self) -> str:
        return "<AwaitingTaker>"

    async def take(self, step: Step[T]) -> T:
        return await step.arun()


BLOCKING: Taker = BlockingTaker()
AWAITING: Taker = AwaitingTaker()
