"""How a person is asked: approvals before a call, and waiting while the server asks.

The runtime asks an ``Interaction`` (the notebook layer supplies one that shows cards in
the cell; this module's ``ConsoleInteraction`` asks on a terminal's stdin, and where
nobody can answer it follows the headless policy).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import json
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar

from ...core.auth.oauth import LoginRequest
from ...core.config.trust import TrustAnswer, TrustQuestion
from ...core.loggers import RUNTIME as LOG
from ...core.protocol.apps import Document
from ...core.safety.text import printable, shown_name
from ...core.session.session import Waker
from ...errors import LoginRequired, ToolDenied
from . import login
from .terminal import StdinEnded, Wake, read_line, stdin_is_terminal
from .textprogress import MapText

if TYPE_CHECKING:
    from .progress import MapProgress

JSON = dict[str, Any]
T = TypeVar("T")
ApprovalAnswer = Literal["approve", "always", "deny"]
# Starts work on the background loop: its future, and a thread-safe cancel.
Start = Callable[[], tuple[concurrent.futures.Future[T], Callable[[], None]]]


@dataclass(frozen=True)
class ApprovalRequest:
    server: str
    tool: str
    title: str | None
    annotations: dict[str, Any]
    arguments: dict[str, Any] = field(repr=False)
    # A bulk map asks once for all its rows: how many (None: not known up front), and the
    # first rows' arguments (``arguments`` is the first of them).
    rows: int | None = None
    examples: tuple[dict[str, Any], ...] = field(default=(), repr=False)

    @property
    def bulk(self) -> bool:
        return bool(self.examples)

    def describe(self) -> str:
        hints = ", ".join(f"{k}={v}" for k, v in self.annotations.items() if k.endswith("Hint")) or "none"
        return f"{self.shown}{self.for_rows()} (hints from the server, untrusted: {hints})"

    @property
    def shown(self) -> str:
        """``server.tool`` as a person must read it: a tool's name escaped (``ec\\x1b[mho``
        never reads ``echo``)."""
        return f"{self.server}.{shown_name(self.tool)}"

    def for_rows(self) -> str:
        """ " for 1,000 rows" for a bulk map (empty for one call)."""
        if not self.bulk:
            return ""
        return f" for {self.rows:,} rows" if self.rows is not None else " for every row of an iterable"

    def shown_arguments(self) -> Any:
        """What to show a person: the call's arguments, or a map's first rows' arguments."""
        return list(self.examples) if self.bulk else self.arguments


# Set in a task that runs a call a tool's view made (MCP Apps): its result shows no view.
VIEW_CALL: contextvars.ContextVar[bool] = contextvars.ContextVar("view_call", default=False)


class AppCall(NamedTuple):
    """A call of a tool with a view (MCP Apps), for the interaction to show: the server's
    handle (the view's own calls go through it), the tool's listing entry, the arguments,
    the result, and the view's document with the policy its frame gets."""

    server: Any  # runtime.handle.ServerHandle
    tool: JSON
    arguments: JSON
    result: Any  # core.types.CallResult
    document: Document
    policy: str


class Interaction:
    """What the runtime asks of whoever sits at the kernel; every member it uses is here.

    The defaults describe nobody: approvals follow ``headless_approval``, waiting is plain,
    progress and pages are not shown, and nobody can log in. ``ConsoleInteraction`` (a
    terminal) and the notebook layer's interaction override what they can do.
    """

    headless_approval: Literal["deny", "allow"] = "deny"
    # True when waiting must go through ``wait``/``await_`` (the server's questions are
    # answered there) and a blocking request must serve ``blocking``'s waker.
    services_prompts: bool = False
    # Whether ``progress`` shows anything (else calls ask the server for none); True for a
    # subclass that defines ``progress``, unless it says otherwise.
    shows_progress: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "progress" in vars(cls) and "shows_progress" not in vars(cls):
            cls.shows_progress = True

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        """Ask before a tool runs, on the calling thread (blocking calls)."""
        return headless_approval(request, self.headless_approval)

    async def aapprove(self, request: ApprovalRequest) -> ApprovalAnswer:
        """Ask before a tool runs, in the awaiting task (awaited calls)."""
        return self.approve(request)

    def wait(self, start: Start[T], server: str | None = None) -> T:
        """Call ``start()`` (it returns the work's future and a cancel function) and block
        for the future on this thread, answering the server's questions meanwhile.
        Ctrl-C cancels the work (and so tells the server)."""
        future, cancel = start()
        try:
            return future.result()
        except KeyboardInterrupt:
            cancel()
            raise

    async def await_(self, start: Start[T], server: str | None = None) -> T:
        """``wait`` for an awaiting task; cancelling the task cancels the work."""
        future, cancel = start()
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            cancel()
            raise

    def blocking(self, server: str | None) -> AbstractContextManager[Waker | None]:
        """For a blocking request that reads its own reply on the calling thread: what it
        serves while it waits (None: nothing, there is nobody to ask)."""
        return contextlib.nullcontext(None)

    def progress(self, server: str, tool: str, progress: float, total: float | None, message: str | None) -> None:
        """A call's progress (called on the background loop; show it, quickly)."""

    def map_text(self, server: str, tool: str) -> Callable[[MapProgress], None] | None:
        """A bulk map's progress as text (a ``MapProgress`` callback), or None: shown by
        ``progress`` if it shows any, else not at all. By default, where ``progress`` shows
        nothing: text on stderr, redrawn in place on a terminal, else a line every few
        seconds at most (textprogress.py)."""
        return None if self.shows_progress else MapText(server, tool)

    def show_urls(self, server: str, elicitations: list[dict[str, Any]], *, awaiting: bool = False) -> None:
        """Pages a server needs visited before a call can work (error -32042); ``awaiting``:
        the call was awaited (a kernel may deliver clicks to an awaiting cell only)."""

    def shows_apps(self, awaiting: bool) -> bool:
        """Whether a tool's view (MCP Apps) can show where the call is made."""
        return False

    def show_app(self, view: AppCall) -> Any:
        """Show a tool's view with its call's result; what comes back is the result's ``app``."""
        return None

    def app_not_shown(self, server: str, tool: str, uri: str, why: str) -> None:
        """A call of a tool with a view, where the view does not show: say so, in a line."""

    def notice(self, text: str) -> None:
        """One line a person should read beside a result (what to do about it): the log's
        warning here; on stderr where someone looks (a terminal, a cell)."""
        LOG.warning("%s", text)

    def can_stop(self, awaiting: bool) -> bool:
        """Whether a person here can stop a call that goes on (a Cancel button, an
        interrupt, Ctrl-C on a terminal); where nobody can, a task's wait has a deadline
        (``Settings.task_timeout``). ``awaiting``: the call is awaited."""
        return False

    def ask_trust(self, question: TrustQuestion, answer: Callable[[bool], TrustAnswer]) -> bool:
        """Ask whether to trust a folder's project servers (``question``); ``answer(yes)``
        acts on the answer (run, or awaited where nothing may block: a card's click) and
        gives the lines to show, now or later.
        False: nobody can be asked here (the caller says how to trust the folder)."""
        return False

    def can_login(self) -> bool:
        """Whether ``alogin`` can reach a person now (by default: whether it is defined)."""
        return type(self).alogin is not Interaction.alogin

    async def alogin(self, request: LoginRequest) -> str:
        """Show how to log in and return the address the browser came back to."""
        raise LoginRequired(
            f"server {request.server!r} needs a login and nobody can log in here; "
            f"log in from a notebook (%mcp login {request.server}) or a terminal (server.login())"
        )


def headless_approval(request: ApprovalRequest, policy: str, how: str | None = None) -> ApprovalAnswer:
    """Nobody can answer: the policy decides, and says so in one line (``how``: how to allow
    the tool where this runs; by default a notebook's and Python's ways)."""
    if policy == "allow":
        print(f"mcp-notebook: nobody can answer here; ran {request.shown} (headless policy: allow)",
              file=sys.stderr)  # fmt: skip
        return "approve"
    denied = ToolDenied(
        f"{request.shown} needs approval and nobody can answer here, so it was denied (nothing "
        "was sent); allow it with "
        + (
            how
            or f"%config MCPMagics.approval_allow = {{{request.server!r}: [{request.tool!r}]}} or client.approval.allow"
        )
    )
    denied.unanswered = True
    raise denied


def approval_on_stdin(request: ApprovalRequest, read: Callable[[str], str | None]) -> ApprovalAnswer:
    """Ask on a terminal: the request, its arguments, and one line read by ``read(prompt)``
    (anything but an approval denies). Plain Python and terminal IPython both ask this way."""
    print(printable(f"Approve {request.describe()} with {'first rows' if request.bulk else 'arguments'}:"))
    print(printable(json.dumps(request.shown_arguments(), indent=2, ensure_ascii=False, default=str)))
    answer = (read("[a]pprove / always [A]llow / [d]eny? ") or "").strip()
    answers: dict[str, ApprovalAnswer] = {"a": "approve", "approve": "approve", "A": "always", "always": "always"}
    return answers.get(answer, "deny")


def trust_on_stdin(
    question: TrustQuestion, answer: Callable[[bool], TrustAnswer], read: Callable[[str], str | None]
) -> bool:
    """Ask on a terminal (on stderr: stdout is for values) whether to trust a folder: only
    "y" or "yes" trusts it; anything else, or the end of stdin, does not."""
    for line in question.lines():
        print(line, file=sys.stderr)
    try:
        reply = read("Trust this folder and start them? [y/N] ")
    except StdinEnded:
        reply = None
    for line in answer((reply or "").strip().lower() in ("y", "yes")).run():
        print(printable(line), file=sys.stderr)
    return True


class ConsoleInteraction(Interaction):
    """Plain Python: ask on stdin when it is a terminal, else follow the headless policy."""

    def __init__(self, headless_approval: Literal["deny", "allow"] = "deny") -> None:
        self.headless_approval = headless_approval

    services_prompts = False

    def notice(self, text: str) -> None:
        print(f"⚠ {printable(text)}", file=sys.stderr)

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return self._approve(request, None)

    def _approve(self, request: ApprovalRequest, wake: Wake | None) -> ApprovalAnswer:
        if not stdin_is_terminal():
            return headless_approval(request, self.headless_approval, self.allow_how(request))
        try:
            return approval_on_stdin(request, lambda prompt: read_line(prompt, wake))
        except StdinEnded:
            print("mcp-notebook: stdin ended: denied", file=sys.stderr)
            return "deny"

    async def aapprove(self, request: ApprovalRequest) -> ApprovalAnswer:
        # Asked on a worker thread; an await that is cancelled ends the read (the wake).
        wake = Wake()

        def ask() -> ApprovalAnswer:
            try:
                return self._approve(request, wake)
            finally:
                wake.close()

        try:
            return await asyncio.get_running_loop().run_in_executor(None, ask)
        finally:
            wake.set()

    def can_stop(self, awaiting: bool) -> bool:
        return stdin_is_terminal()  # Ctrl-C; `python x.py < /dev/null` under cron: nobody

    def allow_how(self, request: ApprovalRequest) -> str | None:
        """How to let ``request``'s tool run where nobody can answer (None: the notebook's
        and Python's ways)."""
        return None

    def ask_trust(self, question: TrustQuestion, answer: Callable[[bool], TrustAnswer]) -> bool:
        if not stdin_is_terminal():
            return False
        return trust_on_stdin(question, answer, lambda prompt: read_line(prompt))

    def can_login(self) -> bool:
        return stdin_is_terminal()

    async def alogin(self, request: LoginRequest) -> str:
        """On a terminal: print the authorization URL and wait for the browser to come back
        to the loopback listener, or for the address it landed on to be pasted."""
        return await login.listen(request, login.TerminalPaste())
