"""Following a task to its end, on the background loop (what each answer means: core/tasks.py).

``follow`` polls ``tasks/get`` at the server's interval and shows each state as the call's
progress (a card with Cancel in a notebook, a status line on a terminal). What the task
needs from a person is asked the way a server's own requests are (the same handlers: an
elicitation card, the sampling callback, the roots): at 2025-11-25 the server sends them
while ``tasks/result`` waits, at 2026-07-28 they come in ``inputRequests`` and are answered
with ``tasks/update``. Cancelling the work (Cancel, Ctrl-C, a cancelled await) sends
``tasks/cancel``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import math
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from ..core.incoming import Handlers, current_server
from ..core.tasks import TaskRecord
from ..errors import MCPError, ProtocolError, RPCError

JSON = dict[str, Any]
Show = Callable[[str], None]  # shows a task's status line
CANCEL_WAIT = 5.0  # seconds tasks/cancel may take when the work is being cancelled

__all__ = ["CANCEL_WAIT", "TaskLink", "follow", "status_shower"]


class TaskLink(Protocol):
    """What a task is followed through (a ``Connection``)."""

    def request(self, method: str, params: JSON | None, timeout: Any = ..., on_progress: Any = None) -> Any: ...


def status_shower(progress: Callable[[str, str, float, float | None, str | None], None], record: TaskRecord) -> Show:
    """A task's status as a progress update without a number (the card, the status line)."""
    return lambda text: progress(record.server, record.tool, math.nan, None, text)


async def follow(link: TaskLink, record: TaskRecord, handlers: Handlers, show: Show | None = None) -> JSON:
    """Poll the task until it ends; return what the call would have returned."""
    result: asyncio.Future[JSON] | None = None  # 2025-11-25: tasks/result, once asked
    try:
        task: JSON = {}
        while True:
            if show is not None:
                show(record.describe())
            if record.modern:
                if record.terminal:
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
            else:
                await asyncio.sleep(record.poll_delay())
            task = await link.request("tasks/get", {"taskId": record.task_id})
            if not isinstance(task, dict):
                raise ProtocolError(f"{record.server}: tasks/get answered with {type(task).__name__}")
            record.update(task)
    except BaseException:
        # Cancelled, interrupted, or failed here: nobody follows the task any more.
        if result is not None:
            result.cancel()
        if not record.terminal:
            await _cancel(link, record)
        raise
    finally:
        if result is not None and not result.done():
            result.cancel()


def _legacy_outcome(record: TaskRecord, result: asyncio.Future[JSON]) -> JSON:
    """What ``tasks/result`` said: the call's result, or the error the task ended in."""
    error = result.exception()
    if error is not None:
        if not record.terminal:
            record.status = "failed"
            record.message = str(error)
        raise error
    record.status = "completed" if not record.terminal else record.status
    return result.result()


async def _answer(link: TaskLink, record: TaskRecord, handlers: Handlers, task: JSON) -> None:
    """Answer what a modern task asks (each key once) and hand the answers over with tasks/update."""
    inputs = record.new_inputs(task)
    if not inputs:
        return
    current_server.set(record.server)  # as for the server's own requests: the handlers read it
    answers: JSON = {}
    for key, request in inputs.items():
        method = request.get("method")
        handler = handlers.for_method(method) if isinstance(method, str) else None
        if handler is None:
            raise ProtocolError(
                f"{record.server}.{record.tool}: task {record.task_id} asks for {method!r}, "
                "which this client does not answer; the task was cancelled"
            )
        params = request.get("params")
        answer = handler(params if isinstance(params, dict) else {})
        answers[key] = (await answer if inspect.isawaitable(answer) else answer) or {}
    await link.request("tasks/update", {"taskId": record.task_id, "inputResponses": answers})
    record.answered.update(answers)


async def _cancel(link: TaskLink, record: TaskRecord) -> None:
    """Tell the server (``tasks/cancel``); what it says back does not change the outcome."""
    record.message = "cancelled by the user"
    request: Coroutine[Any, Any, Any] = link.request("tasks/cancel", {"taskId": record.task_id}, CANCEL_WAIT)
    with contextlib.suppress(MCPError, RPCError, asyncio.CancelledError, asyncio.TimeoutError):
        # Shielded: a second cancel (the cell's grace period ending) must not stop the notice.
        await asyncio.shield(request)
    record.status = "cancelled"
