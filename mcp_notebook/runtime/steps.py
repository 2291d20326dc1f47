"""One pipeline per operation: the steps that differ between a blocking and an awaited call.

An operation is written once, as an ``async def`` that takes a ``Steps`` object after
``self``: it prepares (checks the name, converts and validates the values, asks for
approval), sends, and finishes (the result, the error it means). Only three things differ
between the two ways of calling it, so only they are steps:

- ``run(work, server)``: work that belongs on the background loop (a listing, connecting);
- ``approve(request)``: asking a person before a tool runs;
- ``send(link, ...)``: one request to the server.

``AwaitingSteps`` await: the loop's work is awaited from the caller's event loop, and the
approval is asked in the awaiting task. ``BlockingSteps`` block inside each step, on the
calling thread (the thread that can answer a person: a login's browser redirect reaches
the loop while this thread waits), and their coroutines never suspend, so ``drive`` runs
the whole operation with one ``send(None)``; a request takes the blocking fast path there
(the reply is read on the calling thread, with no hop to the loop).

``blocking(op)`` and ``awaitable(op)`` make the two public methods of one operation.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from ..core.session.session import ProgressCallback
from .asking.interaction import ApprovalAnswer, ApprovalRequest, Interaction

T = TypeVar("T")
P = ParamSpec("P")
JSON = dict[str, Any]


class LoopLink(Protocol):
    """What a request on the background loop is sent through (a ``Connection``, or what
    its ``steady()`` gives)."""

    @property
    def name(self) -> str: ...

    def request(
        self, method: str, params: JSON | None, timeout: Any, on_progress: ProgressCallback | None
    ) -> Coroutine[Any, Any, JSON]:
        """The request, as a coroutine for the background loop."""
        ...


class Link(LoopLink, Protocol):
    """What a request is sent through, either way (a ``Connection``)."""

    def request_blocking(
        self, method: str, params: JSON | None, timeout: Any, on_progress: ProgressCallback | None
    ) -> JSON:
        """The request, sent and waited for on the calling thread."""
        ...


class Waits(Protocol):
    """What the steps need of the runtime (a ``Runtime``)."""

    @property
    def interaction(self) -> Interaction: ...

    def run(self, coro: Coroutine[Any, Any, T], server: str | None = None) -> T: ...

    def awaitable(self, coro: Coroutine[Any, Any, T], server: str | None = None) -> Coroutine[Any, Any, T]: ...


class Steps(Protocol):
    """The steps an operation awaits; see the module's docstring."""

    awaiting: bool  # the caller awaits (what it may show depends on it: a kernel's clicks)

    def run(self, work: Coroutine[Any, Any, T], server: str | None) -> Awaitable[T]: ...

    def approve(self, request: ApprovalRequest) -> Awaitable[ApprovalAnswer]: ...

    def send(
        self,
        link: Link,
        method: str,
        params: JSON | None,
        timeout: Any,
        on_progress: ProgressCallback | None = None,
    ) -> Awaitable[JSON]: ...


class AwaitingSteps:
    """Steps for an awaited call: the network work runs on the background loop, awaited
    from whatever loop the caller is on (answering the server's questions meanwhile)."""

    awaiting = True

    def __init__(self, runtime: Waits) -> None:
        self._runtime = runtime

    def __repr__(self) -> str:
        return "<AwaitingSteps>"

    def run(self, work: Coroutine[Any, Any, T], server: str | None) -> Coroutine[Any, Any, T]:
        return self._runtime.awaitable(work, server)

    def approve(self, request: ApprovalRequest) -> Coroutine[Any, Any, ApprovalAnswer]:
        return self._runtime.interaction.aapprove(request)

    def send(
        self,
        link: Link,
        method: str,
        params: JSON | None,
        timeout: Any,
        on_progress: ProgressCallback | None = None,
    ) -> Coroutine[Any, Any, JSON]:
        # Plain functions returning the coroutine: on the loop's own thread (gathered calls)
        # the request is awaited with no frame between the operation and the session.
        return self._runtime.awaitable(link.request(method, params, timeout, on_progress), link.name)


class BlockingSteps:
    """Steps for a blocking call: each blocks the calling thread inside, and its coroutine
    is done before it is awaited (see ``drive``)."""

    awaiting = False

    def __init__(self, runtime: Waits) -> None:
        self._runtime = runtime

    def __repr__(self) -> str:
        return "<BlockingSteps>"

    async def run(self, work: Coroutine[Any, Any, T], server: str | None) -> T:
        return self._runtime.run(work, server)

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return self._runtime.interaction.approve(request)

    async def send(
        self,
        link: Link,
        method: str,
        params: JSON | None,
        timeout: Any,
        on_progress: ProgressCallback | None = None,
    ) -> JSON:
        return link.request_blocking(method, params, timeout, on_progress)


class GrantedSteps:
    """Steps for calls made on the background loop itself, approved beforehand (a bulk
    map's rows: asked once for the whole map): work is awaited right there."""

    awaiting = True

    def __init__(self, answer: ApprovalAnswer = "approve", via: LoopLink | None = None) -> None:
        self._answer: ApprovalAnswer = answer
        # What requests go through instead of the link given (a map's rows: the connection's
        # steady() link, resolved once for them all).
        self._via = via

    def __repr__(self) -> str:
        return "<GrantedSteps>"

    def run(self, work: Coroutine[Any, Any, T], server: str | None) -> Coroutine[Any, Any, T]:
        return work

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return self._answer

    def send(
        self,
        link: Link,
        method: str,
        params: JSON | None,
        timeout: Any,
        on_progress: ProgressCallback | None = None,
    ) -> Coroutine[Any, Any, JSON]:
        via = self._via
        return (link if via is None else via).request(method, params, timeout, on_progress)


def drive(coro: Coroutine[Any, Any, T]) -> T:
    """Run an operation given ``BlockingSteps`` to its end, on this thread."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError(
        "a blocking mcp-notebook operation awaited something other than its steps; please report this bug"
    )


class StepsSource(Protocol):
    """Where an owner's operations get their steps (a ``Runtime``)."""

    @property
    def blocking_steps(self) -> BlockingSteps: ...

    @property
    def awaiting_steps(self) -> AwaitingSteps: ...


class Operates(Protocol):
    """An object whose operations take steps (a ``Client``, a ``Server``)."""

    @property
    def runtime(self) -> StepsSource: ...


Owner = TypeVar("Owner", bound=Operates)


def blocking(op: Callable[Concatenate[Owner, Steps, P], Coroutine[Any, Any, T]]) -> Callable[Concatenate[Owner, P], T]:
    """The blocking method of operation ``op`` (named ``_x``: the method is ``x``)."""

    def method(self: Owner, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return drive(op(self, self.runtime.blocking_steps, *args, **kwargs))

    return _named(method, op, op.__name__.lstrip("_"))


def awaitable(
    op: Callable[Concatenate[Owner, Steps, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[Owner, P], Coroutine[Any, Any, T]]:
    """The awaitable method of operation ``op`` (named ``_x``: the method is ``ax``)."""

    def method(self: Owner, /, *args: P.args, **kwargs: P.kwargs) -> Coroutine[Any, Any, T]:
        # A plain function returning the operation's coroutine: one frame fewer per call.
        return op(self, self.runtime.awaiting_steps, *args, **kwargs)

    if hasattr(inspect, "markcoroutinefunction"):  # Python >= 3.12: it says it is awaitable
        inspect.markcoroutinefunction(method)
    return _named(method, op, "a" + op.__name__.lstrip("_"))


F = TypeVar("F", bound=Callable[..., Any])


def _named(method: F, op: Callable[..., Any], name: str) -> F:
    """``method`` as ``help()`` and IPython's ``?`` should show it: its name, the
    operation's docstring, and its signature without the steps."""
    signature = inspect.signature(op)
    self, _steps, *rest = signature.parameters.values()
    method.__name__ = name
    method.__qualname__ = f"{op.__qualname__.rsplit('.', 1)[0]}.{name}"
    method.__module__ = op.__module__
    method.__doc__ = op.__doc__
    method.__signature__ = signature.replace(parameters=[self, *rest])  # type: ignore[attr-defined]
    return method


__all__ = [
    "AwaitingSteps",
    "BlockingSteps",
    "GrantedSteps",
    "Link",
    "LoopLink",
    "Steps",
    "awaitable",
    "blocking",
    "drive",
]
