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
task nobody follows (not when it refused or could not be reached).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from ..core.protocol.rounds import failed
from ..core.protocol.tasks import TaskRecord, carries_outcome
from ..core.session.incoming import Handlers, answer_all
from ..errors import MCPError, ProtocolError, RPCError
from .context import Runtime

JSON = dict[str, Any]
Show = Callable[[str], None]  # shows a task's status line
CANCEL_WAIT = 5.0  # seconds tasks/cancel may take when the work is being cancelled

__all__ = ["CANCEL_WAIT", "TaskLink", "follow", "follow_call", "status_shower"]


class TaskLink(Protocol):
    """What a task is followed through (a ``Connection``)."""

    def request(self, method: str, params: JSON | None, timeout: Any = ..., on_progress: Any = None) -> Any: ...


def status_shower(progress: Callable[[str, str, float, float | None, str | None], None], record: TaskRecord) -> Show:
    """A task's status as a progress update without a number (the card, the status line)."""
    return lambda text: progress(record.server, record.tool, math.nan, None, text)


async def follow_call(runtime: Runtime, link: TaskLink, server: str, tool: str, created: JSON, modern: bool) -> JSON:
    """Follow the task a server made of a ``tools/call`` (``created``) to its end, kept for
    ``%mcp tasks``, its status shown where the interaction shows progress (on the loop)."""
    record = runtime.tasks.add(TaskRecord.start(server, tool, created, modern))
    interaction = runtime.interaction
    show = status_shower(interaction.progress, record) if interaction.shows_progress else None
    return await follow(link, record, created, runtime.handlers, show)


async def follow(link: TaskLink, record: TaskRecord, task: JSON, handlers: Handlers, show: Show | None = None) -> JSON:
    """Poll the task (``task``: as created) until it ends; return what the call would have returned."""
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
                    await _answer(link, record, handlers, task)
            elif result is None and record.status != "working":
                # The server's questions arrive while tasks/result waits (and the result with it).
                result = asyncio.ensure_future(link.request("tasks/result", {"taskId": record.task_id}, None))
            if result is not None:
                await asyncio.wait([result], timeout=record.poll_delay())
                if result.done():
                    return _legacy_outcome(record, result)
            elif not record.terminal:
                await asyncio.sleep(record.poll_delay())
            tell_server = False  # its refusal (or silence) is the server's own word
            task = await link.request("tasks/get", {"taskId": record.task_id})
            tell_server = polled = True
            if not isinstance(task, dict):
                raise ProtocolError(f"{record.server}: tasks/get answered with {type(task).__name__}")
            record.update(task)
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
