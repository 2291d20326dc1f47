"""Tasks: a tool call the server runs in the background, followed until it ends (sans-IO).

Two forms. The 2025-11-25 experimental one: the client asks for a task (``"task": {}`` in
the ``tools/call`` params) when the server's capabilities offer ``tasks.requests.tools.call``
and the tool's ``execution.taskSupport`` is ``required`` (or ``optional`` and the caller
asked); the result is ``{"task": {...}}``, ``tasks/get`` polls it (``pollInterval``, ms) and
``tasks/result`` hands over what the call would have returned (and is where the server's
questions arrive while the task needs input). The 2026-07-28 extension
``io.modelcontextprotocol/tasks``: the client declares it in its per-request capabilities
and the server decides; a ``resultType: "task"`` result is the task itself, ``tasks/get``
(``pollIntervalMs``) carries the final ``result`` or ``error`` inline, and the input a task
needs (``inputRequests``) is answered with ``tasks/update``.

What each answer means is decided here; runtime/tasks.py does the I/O.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ...errors import ProtocolError, RequestCancelled, RPCError
from ..safety.text import clipped, printable
from .rounds import check_questions

JSON = dict[str, Any]

EXTENSION = "io.modelcontextprotocol/tasks"
TERMINAL = frozenset({"completed", "failed", "cancelled"})
STATUSES = frozenset({"working", "input_required"}) | TERMINAL
DEFAULT_POLL = 1.0  # seconds between polls when the server suggests nothing
POLL_LIMITS = (0.05, 30.0)  # a server's suggestion is kept within these (seconds)
LOG_SIZE = 1000  # tasks kept per kernel for %mcp tasks


def task_support(tool: JSON | None) -> str:
    """A tool's ``execution.taskSupport`` (``forbidden`` when absent or unknown)."""
    execution = (tool or {}).get("execution")
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return support if support in ("required", "optional") else "forbidden"


def offers_tasks(capabilities: JSON) -> bool:
    """Whether a 2025-11-25 server takes task-augmented ``tools/call`` requests."""
    tasks = capabilities.get("tasks")
    requests = tasks.get("requests") if isinstance(tasks, dict) else None
    tools = requests.get("tools") if isinstance(requests, dict) else None
    return isinstance(tools, dict) and "call" in tools


def augment(tool: JSON | None, capabilities: JSON, asked: bool | None) -> bool:
    """Whether a legacy ``tools/call`` is sent as a task: the server must offer tasks; then a
    tool that requires it always is (it fails otherwise), an optional one when asked."""
    if asked is False or not offers_tasks(capabilities):
        return False
    support = task_support(tool)
    return support == "required" or (support == "optional" and asked is True)


def created_task(raw: JSON, modern: bool) -> JSON | None:
    """The task a ``tools/call`` result stands for, else None (an ordinary result)."""
    task = raw if modern and raw.get("resultType") == "task" else None if modern else raw.get("task")
    if task is None:
        return None
    if not isinstance(task, dict) or not isinstance(task.get("taskId"), str) or not task["taskId"]:
        raise ProtocolError(f"a task result without a taskId: {printable(str(task)[:200])}")
    return task


def carries_outcome(task: JSON) -> bool:
    """Whether a terminal task state holds its outcome (a created task is a bare ``Task``:
    the ``result`` or ``error`` may be left for ``tasks/get``)."""
    status = task.get("status")
    if status == "completed":
        return isinstance(task.get("result"), dict)
    if status == "failed":
        return isinstance(task.get("error"), dict)
    return status == "cancelled"


def _text(value: Any) -> str | None:
    return printable(value) if isinstance(value, str) else None


@dataclass
class TaskRecord:
    """One task as this client last saw it (updated from the background loop)."""

    server: str
    tool: str
    task_id: str
    modern: bool
    status: str = "working"
    message: str | None = None
    created: str | None = None  # the server's ISO 8601 createdAt
    updated: str | None = None
    poll_ms: float | None = None
    started: float = field(default_factory=time.time)  # when this client saw it created
    answered: set[str] = field(default_factory=set, repr=False)  # inputRequests keys answered

    @classmethod
    def start(cls, server: str, tool: str, task: JSON, modern: bool) -> TaskRecord:
        record = cls(server, tool, task["taskId"], modern)
        record.update(task)
        return record

    def __repr__(self) -> str:
        return printable(f"<task {self.server}.{self.tool} {self.task_id[:40]!r} {self.status}>")

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def update(self, task: JSON) -> None:
        """Fold in a task state (a ``tasks/get`` result, a status notification). A terminal
        status sticks; a task id that is not this one is the server's mistake."""
        if task.get("taskId", self.task_id) != self.task_id:
            raise ProtocolError(f"{self.server}: tasks/get for {self.task_id!r} answered for {task.get('taskId')!r}")
        status = task.get("status")
        if not self.terminal and status in STATUSES:
            self.status = status
        elif status not in STATUSES:
            raise ProtocolError(f"{self.server}: task {self.task_id!r} has an unknown status {str(status)[:40]!r}")
        self.message = _text(task.get("statusMessage"))
        self.created = _text(task.get("createdAt")) or self.created
        self.updated = _text(task.get("lastUpdatedAt")) or self.updated
        poll = task.get("pollIntervalMs" if self.modern else "pollInterval")
        if isinstance(poll, (int, float)) and not isinstance(poll, bool) and math.isfinite(poll):
            self.poll_ms = float(poll)

    def poll_delay(self) -> float:
        """Seconds until the next ``tasks/get``: the server's interval, within limits."""
        low, high = POLL_LIMITS
        return DEFAULT_POLL if self.poll_ms is None else min(max(self.poll_ms / 1000, low), high)

    def describe(self) -> str:
        """A status line: ``working: Gathering sources…``."""
        status = "waiting for input" if self.status == "input_required" else self.status
        return f"task {status}" + (f": {self.message}" if self.message else "")

    def new_inputs(self, task: JSON) -> dict[str, JSON]:
        """The ``inputRequests`` of a modern task not answered yet (keys are never reused);
        ProtocolError for one that is not a question this client answers (elicitation,
        sampling, roots) or whose params are not an object."""
        requests = task.get("inputRequests")
        if not isinstance(requests, dict):
            return {}
        new = {k: v for k, v in requests.items() if k not in self.answered}
        check_questions(new, f"{self.server}: task {clipped(self.task_id, 40)!r}")
        return new

    def fail(self, error: BaseException) -> None:
        """Following the task failed here (the call raises ``error``): what ``%mcp tasks`` shows."""
        self.status = "failed"
        self.message = printable(str(error) or type(error).__name__)[:300]

    def final(self, task: JSON) -> JSON:
        """A modern terminal task's outcome: the call's result, or the error it ended in."""
        if self.status == "completed":
            result = task.get("result")
            if not isinstance(result, dict):
                raise ProtocolError(f"{self.server}: task {self.task_id!r} completed without a result")
            return result
        if self.status == "failed":
            error = task.get("error")
            if isinstance(error, dict) and isinstance(error.get("code"), int):
                raise RPCError(error["code"], str(error.get("message", "")), error.get("data"))
            raise RPCError(-32603, f"task {self.task_id} failed" + (f": {self.message}" if self.message else ""))
        raise RequestCancelled(
            f"{self.server}.{self.tool}: the server cancelled task {self.task_id}"
            + (f" ({self.message})" if self.message else "")
        )

    def row(self) -> JSON:
        """This task as a row of ``%mcp tasks``."""
        return {
            "id": self.task_id,
            "server": self.server,
            "tool": self.tool,
            "status": self.status,
            "created": self.created or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
            "message": self.message,
        }


class TaskLog:
    """The tasks seen in this kernel, oldest first (the last ``LOG_SIZE``)."""

    def __init__(self, size: int = LOG_SIZE) -> None:
        self._records: deque[TaskRecord] = deque(maxlen=size)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<TaskLog {len(self._records)} task(s)>"

    def __len__(self) -> int:
        return len(self._records)

    def add(self, record: TaskRecord) -> TaskRecord:
        with self._lock:
            self._records.append(record)
        return record

    def records(self, server: str | None = None) -> list[TaskRecord]:
        with self._lock:
            return [r for r in self._records if server is None or r.server == server]


TASK_COLUMNS = ["id", "server", "tool", "status", "created", "message"]

__all__ = [
    "DEFAULT_POLL",
    "EXTENSION",
    "LOG_SIZE",
    "POLL_LIMITS",
    "STATUSES",
    "TASK_COLUMNS",
    "TERMINAL",
    "TaskLog",
    "TaskRecord",
    "augment",
    "carries_outcome",
    "created_task",
    "offers_tasks",
    "task_support",
]
