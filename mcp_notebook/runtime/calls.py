"""What a tool call needs besides the handle: the ``ToolPlan`` (what every call of one tool
shares: its listing entry, whether to validate, whether to send it as a task, the progress
display, what its requests go through, the era), the ``Finish`` step that makes the
caller's result, and the message for a server that needs a page visited first (-32042).

``Server.call_tool`` plans and calls; ``Server.map`` plans once and calls once per row
(its approval asked once for the whole map): one implementation of a call for both.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from ..core.loggers import RUNTIME as LOG
from ..core.protocol.constants import URL_ELICITATION_REQUIRED
from ..core.safety.links import linkable
from ..core.safety.redact import shown
from ..core.safety.text import printable
from ..core.session.session import ProgressCallback
from ..errors import RequestCancelled, RPCError
from .asking.interaction import Interaction
from .steps import Link

__all__ = [
    "CallEvent",
    "Finish",
    "ToolPlan",
    "call_progress",
    "legacy_asker",
    "asks_old_way",
    "url_required",
    "watched",
    "watching",
]

JSON = dict[str, Any]
R = TypeVar("R")
# A call's last step: (server, tool, result, output_error) -> what the caller gets (a
# CallResult; a map's row: its frame row, bulk.result_fields).
Finish = Callable[[str, str, JSON, "str | None"], R]


@dataclass(frozen=True)
class CallEvent:
    """One tool call, ended, as ``Client.on_call`` hooks get it (a map: one per row)."""

    server: str
    tool: str
    arguments: JSON  # as sent, secret-looking keys' values hidden and long values elided
    duration_s: float
    outcome: str  # "ok", "tool error" (the result's isError), "failed" or "cancelled"
    error: str | None  # what failed, or the tool's error text, in one line

    def __repr__(self) -> str:
        return f"<CallEvent {self.server}.{self.tool} {self.outcome} {self.duration_s:.3f}s>"


async def watched(
    hooks: list[Callable[[CallEvent], Any]], server: str, tool: str, arguments: JSON, call: Awaitable[R]
) -> R:
    """``call`` (a tool call's coroutine), then a CallEvent for each hook, however it ends.
    A hook that raises is logged, never the call's failure."""
    started = time.monotonic()
    try:
        result = await call
    except BaseException as e:
        stopped = isinstance(e, (asyncio.CancelledError, KeyboardInterrupt, RequestCancelled))
        why = f"{type(e).__name__}: {printable(str(e))}"
        _tell(hooks, CallEvent(server, tool, shown(arguments), time.monotonic() - started,
                               "cancelled" if stopped else "failed", why))  # fmt: skip
        raise
    failed = result.get("is_error") if isinstance(result, dict) else getattr(result, "is_error", False)
    said = (result.get("error") if isinstance(result, dict) else getattr(result, "text", None)) if failed else None
    outcome = "tool error" if failed else "ok"
    _tell(hooks, CallEvent(server, tool, shown(arguments), time.monotonic() - started, outcome, said and str(said)))
    return result


def watching(
    hooks: list[Callable[[CallEvent], Any]], server: str, tool: str, call: Callable[[JSON], Awaitable[R]]
) -> Callable[[JSON], Awaitable[R]]:
    """A map's ``call(arguments)``, watched by the hooks there are (none: as it is)."""
    if not hooks:
        return call
    return lambda arguments: watched(hooks, server, tool, arguments, call(arguments))


def _tell(hooks: list[Callable[[CallEvent], Any]], event: CallEvent) -> None:
    for hook in list(hooks):
        try:
            hook(event)
        except Exception:
            LOG.exception("an on_call hook failed on %r", event)


class ToolPlan(NamedTuple):
    """What every call of one tool shares, worked out once (per call, or per map). A tuple:
    made on every call_tool, where a dataclass's __init__ would cost more."""

    name: str
    listing: JSON | None  # the tool's listing entry, if known
    check: Callable[[JSON], None] | None  # checks the arguments against its inputSchema (None: not checked)
    as_task: bool  # a legacy (2025-11-25) tools/call sent task-augmented
    progress: ProgressCallback | None  # the caller's callback and the interaction's display
    link: Link  # what its requests go through: the connection (a map's rows: its GrantedSteps' via)
    modern: bool  # the connection speaks the 2026-07-28 era
    server: str  # the server's name (read once: a property chain per call otherwise)

    def __repr__(self) -> str:
        return f"<ToolPlan {self.name!r}{' validated' if self.check else ''}{' task' if self.as_task else ''}>"


def call_progress(
    interaction: Interaction, server: str, tool: str, on_progress: ProgressCallback | None
) -> ProgressCallback | None:
    """The caller's progress callback, plus the interaction's (a progress bar)."""
    if not interaction.shows_progress:
        return on_progress
    show = interaction.progress

    def both(progress: float, total: float | None, message: str | None) -> None:
        show(server, tool, progress, total, message)
        if on_progress is not None:
            on_progress(progress, total, message)

    return both


def url_required(interaction: Interaction, server: str, error: RPCError, awaiting: bool) -> RPCError:
    """-32042: the server needs the person to visit a page first. Show it (where a person
    can see it) and say to run the call again afterwards; another error as it is."""
    if error.code != URL_ELICITATION_REQUIRED:
        return error
    listed = error.data.get("elicitations") if isinstance(error.data, dict) else None
    elicitations = [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []
    if elicitations:
        interaction.show_urls(server, elicitations, awaiting=awaiting)
    urls = ", ".join(
        f"{e.get('url')}{'' if linkable(e.get('url')) else ' (not a web address to open)'}" for e in elicitations
    )
    return RPCError(
        error.code, f"{server} needs you to complete a step in your browser first ({urls}); then call again", error.data
    )


# What servers say when a tool asks the client mid-call with a request of its own (the
# 2025-11-25 way: ctx.elicit, ctx.sample) on a 2026-07-28 connection, which cannot carry one:
# the official SDK's words, and fastmcp's.
_NO_BACK_CHANNEL = ("no back-channel for server-initiated requests", "server-initiated requests is unavailable")


def _legacy_hint(server: str) -> str:
    return (
        f"this tool asks mid-call in the 2025-11-25 way, which a 2026-07-28 connection cannot "
        f"carry; connect {server} in that era: %mcp restart {server} --protocol legacy "
        f"(server.restart(protocol='legacy'); --protocol legacy --save keeps it)"
    )


def legacy_asker(server: str, error: RPCError) -> RPCError:
    """A 2026-07-28 call that failed because the tool asks the client the 2025-11-25 way:
    say how to connect the server in that era; another error as it is."""
    if not any(words in error.message for words in _NO_BACK_CHANNEL):
        return error
    return RPCError(error.code, f"{error.message}: {_legacy_hint(server)}", error.data)


def asks_old_way(interaction: Interaction, server: str, raw: JSON) -> None:
    """The same for a tool that says so in its result (``isError``, as fastmcp's do): the
    result stays as the server sent it, and a line beside it says what to do."""
    content = raw.get("content")
    texts = [c.get("text") for c in content if isinstance(c, dict)] if isinstance(content, list) else []
    if any(isinstance(t, str) and any(w in t for w in _NO_BACK_CHANNEL) for t in texts):
        interaction.notice(f"{server}: {_legacy_hint(server)}")
