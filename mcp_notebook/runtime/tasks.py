"""Following a task to its end, on the background loop (what each answer means: core/protocol/tasks.py).

``follow`` polls ``tasks/get`` at the server's interval and shows each state as the call's
progress (a card with Cancel in a notebook, a status line on a terminal). What the task
needs from a person is asked the way a server's own requests are (the same handlers: an
elicitation card, the sampling callback, the roots): at 2025-11-25 the server sends them
while ``tasks/result`` waits, at 2026-07-28 they come in ``inputRequests`` and are answered
with ``tasks/update``. Cancelling the work (Cancel, Ctrl-C, a cancelled await) sends
``tasks/cancel`` and the task is recorded ``cancelled``; a failure while following it (an
answer that makes no sense, input nobody here can give, the server refusing ``tasks/get``)
is recorded ``failed``, and the server hears ``tasks/cancel`` only where it still runs a
task nobody follows (not when it refused or could not be reached). A task may have a
deadline (``TaskDeadline``: the call's timeout, or where nobody can stop it the
``task_timeout`` setting): when it passes, the server hears ``tasks/cancel``, the task is
recorded ``cancelled`` and the call raises ``RequestTimeout`` naming it.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.protocol.rounds import failed
from ..core.protocol.tasks import TaskRecord, carries_outcome
from ..core.session.incoming import Handlers, answer_all
from ..errors import MCPError, ProtocolError, RequestTimeout, RPCError
from .context import DEFAULT, Runtime

JSON = dict[str, Any]
Show = Callable[[str], None]  # shows a task's status line
CANCEL_WAIT = 5.0  # seconds tasks/cancel may take when the work is being cancelled

__all__ = ["CANCEL_WAIT", "TaskDeadline", "TaskLink", "follow", "follow_call", "status_shower"]


@dataclass(frozen=True)
class TaskDeadline:
    """When following a task gives up: ``at`` on ``time.monotonic()``'s clock, ``seconds``
    from the call's start; ``setting``: it is ``task_timeout``'s, not the call's own."""

    at: float
    seconds: float
    setting: bool = False

    @classmethod
    def for_call(
        cls, runtime: Runtime, timeout: float | None, own: float | None, started: float, awaiting: bool
    ) -> TaskDeadline | None:
        """The deadline of a call's task: the call's ``timeout``, else the server's ``own``
        (its config's ``timeout``/``tool_timeout_sec``), from the call's start; with
        neither, where nobody can stop the call (a headless run), ``task_timeout``."""
        if timeout is DEFAULT:
            timeout = own or DEFAULT
        if timeout is not DEFAULT:
            return None if timeout is None else cls(started + timeout, timeout)
        limit = runtime.settings.task_timeout
        if limit is None or runtime.interaction.can_stop(awaiting):
            return None
        return cls(started + limit, limit, setting=True)

    def left(self) -> float:
        return self.at - time.monotonic()

    def error(self, record: TaskRecord) -> RequestTimeout:
        if self.setting:
            limit = f"task_timeout ({self.seconds:g} s), the limit where nobody can stop a call"
            hint = "give the call a timeout, or raise task_timeout (%config MCPMagics.task_timeout)"
        else:
            limit, hint = f"the call's timeout of {self.seconds:g} s", "give the call a longer timeout"
        return RequestTimeout(
            f"{record.tool} on server {record.server!r} did not finish within {limit}; its task "
            f"{record.task_id[:40]} was cancelled (tasks/cancel, listed by %mcp tasks): {hint}"
        )


class _Expired(Exception):
    """The task's deadline passed while it was followed."""


class TaskLink(Protocol):
    """What a task is followed through (a ``Connection``)."""

    def request(self, method: str, params: JSON | None, timeout: Any = ..., on_progress: Any = None) -> Any: ...


def status_shower(progress: Callable[[str, str, float, float | None, str | None], None], record: TaskRecord) -> Show:
    """A task's status as a progress update without a number (the card, the status line)."""
    return lambda text: progress(record.server, record.tool, math.nan, None, text)


async def follow_call(
    runtime: Runtime,
    link: TaskLink,
    server: str,
    tool: str,
    created: JSON,
    modern: bool,
    deadline: TaskDeadline | None = None,
) -> JSON:
    """Follow the task a server made of a ``tools/call`` (``created``) to its end, kept for
    ``%mcp tasks``, its status shown where the interaction shows progress (on the loop)."""
    record = runtime.tasks.add(TaskRecord.start(server, tool, created, modern))
    interaction = runtime.interaction
    show = status_shower(interaction.progress, record) if interaction.shows_progress else None
    return await follow(link, record, created, runtime.handlers, show, deadline)


async def follow(
    link: TaskLink,
    record: TaskRecord,
    task: JSON,
    handlers: Handlers,
    show: Show | None = None,
    deadline: TaskDeadline | None = None,
) -> JSON:
    """Poll the task (``task``: as created) until it ends, or its ``deadline``; return what
    the call would have returned."""

    def wait_at_most(seconds: float) -> float:
        if deadline is None:
            return seconds
        left = deadline.left()
        if left <= 0:
            raise _Expired
        return min(seconds, left)

    result: asyncio.Future[JSON] | None = None  # 2025-11-25: tasks/result, once asked
    polled = False  # whether ``task`` came from tasks/get (a created task may leave its outcome to it)
    tell_server = True  # whether a failure here leaves the server running a task nobody follows
    try:
        while True:
            if show is not None:
                show(record.describe())
            if record.modern:
                if record.terminal and (polled or carries_outcome(task)):
                    return record.final(task)
                if record.status == "input_required":
                    answering = _answer(link, record, handlers, task)
                    if deadline is None:
                        await answering
                    else:
                        try:
                            await asyncio.wait_for(answering, wait_at_most(math.inf))
                        except asyncio.TimeoutError:
                            raise _Expired from None
            elif result is None and record.status != "working":
                # The server's questions arrive while tasks/result waits (and the result with it).
                result = asyncio.ensure_future(link.request("tasks/result", {"taskId": record.task_id}, None))
            if result is not None:
                await asyncio.wait([result], timeout=wait_at_most(record.poll_delay()))
                if result.done():
                    return _legacy_outcome(record, result)
            elif not record.terminal:
                await asyncio.sleep(wait_at_most(record.poll_delay()))
            tell_server = False  # its refusal (or silence) is the server's own word
            if deadline is None:
                task = await link.request("tasks/get", {"taskId": record.task_id})
            else:
                try:
                    task = await link.request("tasks/get", {"taskId": record.task_id}, wait_at_most(math.inf))
                except RequestTimeout:
                    if deadline.left() > 0:
                        raise
                    raise _Expired from None
            tell_server = polled = True
            if not isinstance(task, dict):
                raise ProtocolError(f"{record.server}: tasks/get answered with {type(task).__name__}")
            record.update(task)
    except _Expired:
        assert deadline is not None  # only a deadline expires
        if result is not None:
            result.cancel()
        record.message = f"not finished within {deadline.seconds:g} s"
        await _cancel(link, record)
        record.status = "cancelled"
        raise deadline.error(record) from None
    except Exception as error:
        # Following failed here: the call raises it, the task is recorded failed.
        if result is not None:
            result.cancel()
        if not record.terminal:
            record.fail(error)
            if tell_server:
                await _cancel(link, record)
        raise
    except BaseException:
        # Cancel, an interrupt, a cancelled await: the person stopped the work.
        if result is not None:
            result.cancel()
        if not record.terminal:
            record.message = "cancelled by the user"
            await _cancel(link, record)
            record.status = "cancelled"
        raise


def _legacy_outcome(record: TaskRecord, result: asyncio.Future[JSON]) -> JSON:
    """What ``tasks/result`` said: the call's result, or the error the task ended in."""
    error = result.exception()
    if error is not None:
        if not record.terminal:
            record.fail(error)
        raise error
    record.status = "completed" if not record.terminal else record.status
    return result.result()


async def _answer(link: TaskLink, record: TaskRecord, handlers: Handlers, task: JSON) -> None:
    """Answer what a modern task asks (each key once, as a server's own questions are
    answered) and hand the answers over with tasks/update."""
    inputs = record.new_inputs(task)
    if not inputs:
        return
    try:
        answers = await answer_all(handlers, record.server, inputs)
    except Exception as error:  # nobody here gives what the task waits for
        raise failed(error, f"{record.tool} (task {record.task_id[:40]})", record.server) from error
    await link.request("tasks/update", {"taskId": record.task_id, "inputResponses": answers})
    record.answered.update(answers)


async def _cancel(link: TaskLink, record: TaskRecord) -> None:
    """Tell the server (``tasks/cancel``); what it says back does not change the outcome."""
    request: Coroutine[Any, Any, Any] = link.request("tasks/cancel", {"taskId": record.task_id}, CANCEL_WAIT)
    with contextlib.suppress(MCPError, RPCError, asyncio.CancelledError, asyncio.TimeoutError):
        # Shielded: a second cancel (the cell's grace period ending) must not stop the notice.
        await asyncio.shield(request)
