"""An MCP server built on the official SDK (``mcp.server.mcpserver.MCPServer``, dual-era) that
speaks the tasks extension, ``io.modelcontextprotocol/tasks`` (SEP-2663). The SDK has the
extension mechanism (``Extension``: methods and a ``tools/call`` interceptor); the extension
itself is written here from the spec's text.

    python tests/servers/sdk_tasks.py [--http PORT] [--eager inline|bare] [--ask METHOD]
                                      [--fail-get status|unknown] [--modern-only]

To a client that declares the extension in its per-request capabilities, ``slow_task``
(``seconds``, default 1; three steps, each with a status message) and ``confirm_task`` (asks
whether to delete ``item`` through the task's ``inputRequests``, answered with
``tasks/update``) return ``resultType: "task"``; ``tasks/get``, ``tasks/update`` and
``tasks/cancel`` serve them (each -32021 without the extension). Polls every 100 ms.
To any other client both tools answer at once, as plain tools.

Options for the cases a client must survive: ``--eager`` creates a task in the first state
its work settles in (``slow_task seconds=0`` already ``completed``, ``confirm_task`` already
``input_required``), ``inline`` with its ``result``/``inputRequests``, ``bare`` as a plain
``Task`` (those left for ``tasks/get``); ``--ask METHOD`` makes ``confirm_task`` ask with
that method instead of ``elicitation/create``; ``--fail-get status`` answers ``tasks/get`` of
a working task with an unknown status, ``--fail-get unknown`` refuses it (-32602, as for a
task the server forgot). The tool ``task_requests`` lists the tasks/* requests seen so far.
``--modern-only`` answers ``initialize`` with -32022, as a server that dropped the legacy era
would (one upgraded under a client that spoke legacy with it).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import uuid
from typing import Any

from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.server import require_client_extension
from mcp.shared.exceptions import MCPError
from mcp_types import ErrorData, RequestParams
from serving import serve

TASKS = "io.modelcontextprotocol/tasks"
POLL_MS = 100
OPTIONS = argparse.Namespace(eager=None, ask="elicitation/create", fail_get=None)  # set by main()
SEEN: list[str] = []  # the tasks/* requests, in order


class TaskIdParams(RequestParams):
    task_id: str


class TaskUpdateParams(TaskIdParams):
    input_responses: dict[str, Any]


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TasksExtension(Extension):
    """Runs ``slow_task`` and ``confirm_task`` as tasks for a client that declared the extension."""

    identifier = TASKS

    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, Any]] = {}
        self.jobs: dict[str, asyncio.Task[None]] = {}
        self.answers: dict[str, asyncio.Future[Any]] = {}
        self.settled: dict[str, asyncio.Event] = {}  # set once a task asks or ends (--eager)

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", TaskIdParams, self.get),
            MethodBinding("tasks/update", TaskUpdateParams, self.update),
            MethodBinding("tasks/cancel", TaskIdParams, self.cancel),
        ]

    def _set(self, task_id: str, status: str, message: str | None = None, **extra: Any) -> None:
        task = self.tasks[task_id]
        if task["status"] in ("completed", "failed", "cancelled"):
            return
        for key in ("statusMessage", "inputRequests"):
            task.pop(key, None)
        task.update(status=status, lastUpdatedAt=_now(), **extra)
        if message:
            task["statusMessage"] = message
        if status != "working":
            self.settled[task_id].set()

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        if params.name not in ("slow_task", "confirm_task"):
            return await call_next(ctx)
        require_client_extension(ctx, TASKS)
        task_id = uuid.uuid4().hex
        now = _now()
        task = {"taskId": task_id, "status": "working", "createdAt": now, "lastUpdatedAt": now}
        self.tasks[task_id] = {**task, "ttlMs": 600000, "pollIntervalMs": POLL_MS}
        self.settled[task_id] = asyncio.Event()
        work = self._slow if params.name == "slow_task" else self._confirm
        self.jobs[task_id] = asyncio.ensure_future(work(task_id, params.arguments or {}))
        if OPTIONS.eager:
            await self.settled[task_id].wait()
        created = {"resultType": "task", **self.tasks[task_id]}
        if OPTIONS.eager == "bare":
            for key in ("result", "error", "inputRequests"):
                created.pop(key, None)
        return created

    def _done(self, task_id: str, text: str) -> None:
        result = {"content": [{"type": "text", "text": text}], "isError": False}
        self._set(task_id, "completed", None, result=result)

    async def _slow(self, task_id: str, arguments: dict[str, Any]) -> None:
        seconds = float(arguments.get("seconds", 1))
        for step in range(1, 4):
            self._set(task_id, "working", f"step {step}/3")
            await asyncio.sleep(seconds / 3)
        self._done(task_id, f"slept {seconds:g} s")

    async def _confirm(self, task_id: str, arguments: dict[str, Any]) -> None:
        item = arguments.get("item", "it")
        self.answers[task_id] = asyncio.get_running_loop().create_future()
        schema = {"type": "object", "properties": {"ok": {"type": "boolean", "title": "Delete?"}}, "required": ["ok"]}
        request = {"method": OPTIONS.ask, "params": {"mode": "form", "message": f"Delete {item}?",
                                                              "requestedSchema": schema}}  # fmt: skip
        self._set(task_id, "input_required", f"asking whether to delete {item}", inputRequests={"confirm": request})
        answer = await self.answers[task_id]
        self._set(task_id, "working", "answered")
        ok = answer.get("action") == "accept" and (answer.get("content") or {}).get("ok") is True
        self._done(task_id, f"deleted {item}" if ok else f"kept {item}")

    def _known(self, task_id: str) -> dict[str, Any]:
        if task_id not in self.tasks:
            raise MCPError.from_error_data(ErrorData(code=-32602, message=f"unknown task {task_id}"))
        return self.tasks[task_id]

    async def get(self, ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        require_client_extension(ctx, TASKS)
        SEEN.append("tasks/get")
        task = self._known(params.task_id)
        if OPTIONS.fail_get == "unknown":
            raise MCPError.from_error_data(ErrorData(code=-32602, message=f"unknown task {params.task_id}"))
        if OPTIONS.fail_get == "status" and task["status"] == "working":
            return {"resultType": "complete", **task, "status": "paused"}
        return {"resultType": "complete", **task}

    async def update(self, ctx: Any, params: TaskUpdateParams) -> dict[str, Any]:
        require_client_extension(ctx, TASKS)
        SEEN.append("tasks/update")
        task = self._known(params.task_id)
        answer = params.input_responses.get("confirm")
        future = self.answers.get(params.task_id)
        if task["status"] == "input_required" and isinstance(answer, dict) and future and not future.done():
            future.set_result(answer)
        return {"resultType": "complete"}

    async def cancel(self, ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        require_client_extension(ctx, TASKS)
        SEEN.append("tasks/cancel")
        self._known(params.task_id)
        self._set(params.task_id, "cancelled", "cancelled by request")
        job = self.jobs.get(params.task_id)
        if job is not None:
            job.cancel()
        return {"resultType": "complete"}


server = MCPServer("sdk-tasks", version="1.0.0", extensions=[TasksExtension()])


@server.tool()
def slow_task(seconds: float = 1.0) -> str:
    """Sleep a while (as a task, for a client that declares the tasks extension)."""
    return f"slept {seconds:g} s (no task)"


@server.tool()
def confirm_task(item: str) -> str:
    """Ask whether to delete an item (as a task with input, for a client that declares the tasks extension)."""
    return f"kept {item} (no task)"


@server.tool()
def task_requests() -> str:
    """The tasks/* requests this server has seen, in order (space-separated)."""
    return " ".join(SEEN)


def modern_only(ctx: Any, call_next: Any) -> Any:
    if ctx.method == "initialize":
        raise MCPError.from_error_data(
            ErrorData(code=-32022, message="Unsupported protocol version", data={"supported": ["2026-07-28"]})
        )
    return call_next(ctx)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--eager", choices=["inline", "bare"])
    parser.add_argument("--ask", default="elicitation/create", metavar="METHOD")
    parser.add_argument("--fail-get", choices=["status", "unknown"])
    parser.add_argument("--modern-only", action="store_true")
    opts = parser.parse_args()
    OPTIONS.eager, OPTIONS.ask, OPTIONS.fail_get = opts.eager, opts.ask, opts.fail_get
    if opts.modern_only:
        server.middleware.append(modern_only)
    serve(server, opts.http)


if __name__ == "__main__":
    main()
