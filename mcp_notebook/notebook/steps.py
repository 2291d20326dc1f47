"""One piece of logic, run blocking or awaited.

Waiting for a call, asking a question and running a magic each exist for a blocking cell
and for an awaiting one (where ipykernel 7 delivers widget clicks). Their logic is written
once, as a generator that yields a ``Step`` wherever it waits and gets the step's value
back (or its exception, thrown in at the ``yield``); ``run_blocking`` and ``run_awaiting``
are the two ways to take the steps. Only the steps know how to wait.
"""

from __future__ import annotations

from collections.abc import Awaitable, Generator
from typing import Any, Protocol, TypeVar, cast

__all__ = ["Logic", "Step", "run_awaiting", "run_blocking"]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Step(Protocol[T_co]):
    """Something to wait for: ``run()`` blocks for it, ``arun()`` awaits it."""

    def run(self) -> T_co: ...

    def arun(self) -> Awaitable[T_co]: ...


Logic = Generator["Step[Any]", Any, T]  # yields steps, is sent their values, returns T


def run_blocking(logic: Logic[T]) -> T:
    """Take the logic's steps on this thread."""
    value: Any = None
    error: BaseException | None = None
    try:
        while True:
            try:
                step = logic.send(value) if error is None else logic.throw(error)
            except StopIteration as done:
                return cast(T, done.value)
            value, error = None, None
            try:
                value = step.run()
            except BaseException as e:  # the logic decides (an interrupt closes its card)
                error = e
    finally:
        error = None  # no cycle through the traceback
        logic.close()


async def run_awaiting(logic: Logic[T]) -> T:
    """Take the logic's steps in the awaiting task."""
    value: Any = None
    error: BaseException | None = None
    try:
        while True:
            try:
                step = logic.send(value) if error is None else logic.throw(error)
            except StopIteration as done:
                return cast(T, done.value)
            value, error = None, None
            try:
                value = await step.arun()
            except BaseException as e:  # a cancelled task too: the logic says it in one line
                error = e
    finally:
        error = None
        logic.close()
