"""The UI bridge: the Interaction the magics install, how a waiting cell shows a question
and receives the person's answer.

The mode (cards, ``input()`` or the headless policy) is chosen per kernel and context in
modes.py; each kind of question knows how it is asked in each (questions.py); the waiting
itself (waiters, wake-up pipes, Ctrl-C, event pumps) is waiting.py's. Waiting for a call and
asking a question are each written once, as an ``async def`` taking a ``Taker``, and run
blocking (``drive``) or awaited (steps.py).

Questions the server asks during a call arrive on the background loop; they are handed to
the cell that waits for that call, which shows them: output then lands in the right cell.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, Literal, TypeVar

from ..commands.steps import AWAITING, BLOCKING, Taker
from ..core.auth.oauth import LoginRequest
from ..core.config.trust import TrustAnswer, TrustQuestion
from ..core.safety.links import link_problem
from ..core.safety.text import printable
from ..errors import AuthError, LoginRequired, RequestCancelled
from ..runtime.asking import login
from ..runtime.asking.interaction import AppCall, ApprovalAnswer, ApprovalRequest, Interaction, Start, trust_on_stdin
from ..runtime.asking.progress import MapProgress
from ..runtime.asking.textprogress import MapText, is_terminal
from ..runtime.loop import on_loop_thread
from ..runtime.steps import drive
from . import console
from .modes import BLOCKED_NOTE, UNASKED_IN_VOILA, Mode, choose_mode, widgets_show
from .places import SHOWN_IN, say, show
from .questions import Approval, Login, Question
from .waiting import BlockingWaker, CardAnswer, Item, NextItem, Waiter, outcome, sigint_held, wake_pipe

__all__ = ["NotebookInteraction"]

T = TypeVar("T")


class NotebookInteraction(Interaction):
    """The Interaction the magics install: cards in the cell, or stdin, or the policy."""

    services_prompts = True

    def __init__(self) -> None:
        self.mode_setting: Literal["auto", "widgets", "stdin", "headless"] = "auto"
        self.headless_approval: Literal["deny", "allow"] = "deny"
        self.headless_elicitation: Literal["decline", "cancel"] = "decline"
        self.sampler: Callable[[dict[str, Any]], Any] | None = None  # drafts a sampling reply
        self.sampling_needs_approval = True
        self.show_logs = True
        self.log_lines = 50  # log messages a call prints in its cell
        self.url_cards: dict[str, Any] = {}  # by elicitation id
        self._waiters: list[Waiter] = []
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<NotebookInteraction mode={self.mode_setting!r} waiting={len(self._waiters)}>"

    # -- approval (in the caller's context, before anything is sent) ---------------------

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        answer: ApprovalAnswer = drive(self._asking(BLOCKING, Approval(request.server, request)))
        return answer

    async def aapprove(self, request: ApprovalRequest) -> ApprovalAnswer:
        try:
            answer: ApprovalAnswer = await self._asking(AWAITING, Approval(request.server, request))
        except (asyncio.CancelledError, KeyboardInterrupt):
            # An interrupted awaiting cell: one line instead of a bare CancelledError.
            raise RequestCancelled(
                f"interrupted before {request.server}.{request.tool} was approved; nothing was sent"
            ) from None
        return answer

    # -- waiting for a call -------------------------------------------------------------

    def wait(self, start: Start[T], server: str | None = None) -> T:
        return drive(self._waiting(BLOCKING, start, server))

    async def await_(self, start: Start[T], server: str | None = None) -> T:
        if on_loop_thread():
            # Its questions would be answered here, blocking every connection (a bug: fail, not hang).
            raise RuntimeError("mcp-notebook waited for a call on its background loop's thread; please report this bug")
        return await self._waiting(AWAITING, start, server)

    async def _waiting(self, taker: Taker, start: Start[T], server: str | None) -> T:
        """Start the work and show what the loop hands over until it is done."""
        waiter = Waiter(server, asyncio.get_running_loop() if taker.awaiting else None)
        self._push(waiter)  # listening before the work starts: the server may ask at once
        try:
            future, waiter.cancel = start()
            waiter.future = future
            future.add_done_callback(lambda _: waiter.post("done", None))
            while True:
                kind, item = await taker.take(NextItem(waiter, self._polls))
                if kind == "done":
                    return outcome(future, waiter)
                await self._take(taker, waiter, (kind, item))
        except (KeyboardInterrupt, asyncio.CancelledError):
            waiter.cancel()
            waiter.close_bars("interrupted")
            if taker.awaiting:  # an interrupted awaiting cell is a cancelled task: say it in one line
                raise RequestCancelled(
                    f"interrupted{f' the call to {server}' if server else ''}; the server was told"
                ) from None
            if waiter.future is not None:
                try:
                    waiter.future.exception(2)  # let the cancel reach the server
                except BaseException:
                    pass
            raise
        finally:
            self._pop(waiter)

    @contextlib.contextmanager
    def blocking(self, server: str | None) -> Iterator[BlockingWaker]:
        """For a blocking request that reads its own reply (the fast path): listen for the
        server's questions while it waits, and answer them on this thread."""
        waiter = Waiter(server, blocking=True)
        waker = BlockingWaker(waiter, wake_pipe(), lambda item: drive(self._take(BLOCKING, waiter, item)), self._polls)
        self._push(waiter)
        try:
            yield waker
            waker.serve(drain=False)  # anything that came with the reply (a last log line)
        except KeyboardInterrupt:
            waiter.close_bars("interrupted")
            raise
        finally:
            waiter.wake_fd = None
            self._pop(waiter)

    def _polls(self) -> bool:
        """A blocked cell gets clicks only by polling UI events (ipykernel 6)."""
        return choose_mode(self.mode_setting, in_async=False) is Mode.WIDGET_POLL

    def _push(self, waiter: Waiter) -> None:
        with self._lock:
            self._waiters.append(waiter)

    def _pop(self, waiter: Waiter) -> None:
        with self._lock:
            if waiter in self._waiters:
                self._waiters.remove(waiter)
        waiter.finish()

    def _current(self) -> Waiter | None:
        with self._lock:
            return self._waiters[-1] if self._waiters else None

    async def _take(self, taker: Taker, waiter: Waiter, item: Item) -> None:
        """One thing the loop handed the waiting cell: a question (asked and answered), or
        something to show."""
        kind, value = item
        if kind == "question":
            await self._answering(taker, value)
        else:
            self._show(waiter, kind, value)

    def _show(self, waiter: Waiter, kind: str, item: Any) -> None:
        if kind == "progress":
            if waiter.progress_due() == 0:
                waiter.show_progress()
            # else: shown when due (the waits wake for it) or when the call ends
        elif kind == "log":
            waiter.show_log(*item)
        elif kind == "url-complete":
            card = self.url_cards.pop(item, None)
            if card is not None:
                card.completed()

    # -- asking ---------------------------------------------------------------------------

    async def _answering(self, taker: Taker, question: Question) -> None:
        """Ask a question the loop handed over; its answer (or error) goes back to the loop."""
        if question.answer.done():
            return  # withdrawn, or over (the browser came back) before it was shown
        try:
            answer = await self._asking(taker, question)
        except BaseException as e:
            if not question.answer.done():
                question.answer.set_exception(e if isinstance(e, Exception) else RequestCancelled("interrupted"))
            if not isinstance(e, Exception):
                raise  # an interrupt
        else:
            if not question.answer.done():
                question.answer.set_result(answer)

    async def _asking(self, taker: Taker, question: Question) -> Any:
        """Ask in this kernel's mode: a card (waited for blocking or awaited), stdin, or the policy."""
        mode = choose_mode(self.mode_setting, taker.awaiting)
        if mode.headless:
            if mode is Mode.HEADLESS_BLOCKED:
                say(BLOCKED_NOTE, stderr=True)
            unasked = UNASKED_IN_VOILA.get()
            if unasked is not None and not isinstance(question, Approval):  # approval: ToolDenied.unanswered
                unasked.append(question.server)
            return question.headless(self)
        if on_loop_thread():
            # Waiting here for a person would block every connection (a bug: fail, not hang).
            raise RuntimeError(
                f"mcp-notebook asked {question!r} on its background loop's thread; please report this bug"
            )
        if mode is Mode.STDIN:
            return question.ask_stdin(self)
        card = None
        try:
            # An interrupt while the card is built or shown would leave it half made and
            # asking: it is held until the card can be closed.
            with sigint_held() as interrupted:
                card = question.card = question.make_card(self)
                card.show()
                place = SHOWN_IN.get()
                if place is not None:  # a task outside cells: its place knows what it asks
                    place.asking(card)
            if interrupted():
                raise KeyboardInterrupt
            await taker.take(
                CardAnswer(card, question.answer, polls=mode is Mode.WIDGET_POLL, awaits=mode is Mode.WIDGET_AWAIT)
            )
        except (KeyboardInterrupt, asyncio.CancelledError):
            if card is not None:
                card.close("interrupted")
                card.leave_record()
            raise
        if not card.answered:
            card.close("withdrawn by the server")
        card.leave_record()
        return question.result(card.answer)

    # -- what the background loop calls ------------------------------------------------

    def progress(self, server: str, tool: str, progress: float, total: float | None, message: str | None) -> None:
        waiter = self._current()
        if waiter is not None:
            waiter.post_progress((server, tool), (progress, total, message))

    def map_text(self, server: str, tool: str) -> Callable[[MapProgress], None] | None:
        """A map's progress as text where a bar would not be seen: a notebook run headless
        (nbclient, papermill: a bar is saved as a widget's repr) or terminal IPython whose
        output goes to a file; else None (the progress bar, or terminal IPython's line)."""
        if console.in_terminal():
            return None if is_terminal(sys.stdout) else MapText(server, tool)
        setting = "auto" if self.mode_setting == "headless" else self.mode_setting  # forced: a bar may be seen
        return MapText(server, tool) if choose_mode(setting, in_async=True) is Mode.HEADLESS else None

    def notification(self, server: str, method: str, params: dict[str, Any], tag: str | None = None) -> None:
        waiter = self._current()
        if waiter is None:
            return
        if method == "notifications/message" and self.show_logs and waiter.server == server:
            waiter.post_log(server, params, self.log_lines, tag)  # only in the cell of a call to that server
        elif method == "notifications/elicitation/complete":
            waiter.post("url-complete", params.get("elicitationId"))

    def show_urls(self, server: str, elicitations: list[dict[str, Any]], *, awaiting: bool = False) -> None:
        """Pages a server needs visited before a call can work (error -32042): shown, not
        waited for (the call already failed; the person runs it again afterwards)."""
        mode = choose_mode(self.mode_setting, in_async=awaiting)
        if mode is Mode.STDIN or mode.headless:
            for e in elicitations:
                problem = link_problem(e.get("url"))
                warning = f" (⚠ do not open it: {problem})" if problem else ""
                line = f"{server}: {e.get('message', 'open this page')}: {e.get('url')}{warning}"
                say(printable(line), stderr=True)
            return
        from .cards import UrlCard

        for e in elicitations:
            card = UrlCard(server, e)
            if card.elicitation_id:
                self.url_cards[card.elicitation_id] = card
            show(card.widget, keep=True)  # it stays: the call failed, the page is still to visit

    # -- MCP Apps: a tool's view with its call -------------------------------------------

    def shows_apps(self, awaiting: bool) -> bool:
        """Views show where widgets are seen (modes.widgets_show), from a blocking call as
        from an awaited one: unlike a card, a view needs no click to reach a waiting cell."""
        return widgets_show(self.mode_setting)

    def show_app(self, view: AppCall) -> Any:
        from .appview import AppHandle

        handle = AppHandle(view)
        show(handle.widget, keep=True)
        return handle

    def app_not_shown(self, server: str, tool: str, uri: str, why: str) -> None:
        say(printable(f"{server}.{tool} has an interactive view ({uri}), not shown here: {why}"), stderr=True)

    def notice(self, text: str) -> None:
        say(f"⚠ {printable(text)}", stderr=True)

    async def ask_from_server(self, question: Question) -> Any:
        """A server's request (elicitation, sampling) on the background loop: hand it to
        the waiting cell and wait for the answer; with no cell waiting, the policy."""
        preset = question.preset(self)
        if preset is not None:
            return preset
        waiter = self._current()
        if waiter is None:
            return question.headless(self)
        waiter.post("question", question)
        try:
            return await asyncio.wrap_future(question.answer)
        except asyncio.CancelledError:  # the server withdrew it (notifications/cancelled)
            if question.card is not None:
                question.card.close("withdrawn by the server")
            question.answer.cancel()
            raise

    # -- trusting a folder's project servers (%mcp load) --------------------------------

    def ask_trust(self, question: TrustQuestion, answer: Callable[[bool], TrustAnswer]) -> bool:
        """A card, which acts when clicked (the cell goes on: nothing waits for it); where
        no card shows, a line typed in answer; where nobody can answer, not asked."""
        if self.mode_setting != "stdin" and widgets_show(self.mode_setting):
            from .trustcard import TrustCard

            TrustCard(question, answer).show()
            return True
        if choose_mode(self.mode_setting, in_async=False) is Mode.STDIN:
            return trust_on_stdin(question, answer, console.read_answer)
        return False

    # -- OAuth login (asked from the background loop, shown in the waiting cell) --------

    def can_stop(self, awaiting: bool) -> bool:
        # A kernel with a frontend can be interrupted, and a task's card has Cancel.
        return not choose_mode(self.mode_setting, in_async=awaiting).headless

    def can_login(self) -> bool:
        return not choose_mode(self.mode_setting, in_async=False).headless

    async def alogin(self, request: LoginRequest) -> str:
        """The login card in the cell that waits; done when the browser comes back to the
        loopback listener, or when the person pastes the address it landed on."""
        waiter = self._current()
        if waiter is None:
            raise LoginRequired(f"server {request.server!r} needs a login: run %mcp login {request.server}")
        return await login.listen(request, _CellPaste(waiter, request.server))


class _CellPaste:
    """A login's paste asked in the waiting cell: the login card (or a terminal's stdin)."""

    def __init__(self, waiter: Waiter, server: str) -> None:
        self.waiter = waiter
        self.retry = f"run %mcp login {server}"
        self.question: Login | None = None

    async def ask(self, request: LoginRequest) -> str | None:
        self.question = Login(request.server, request)
        self.waiter.post("question", self.question)
        pasted = await asyncio.wrap_future(self.question.answer)
        if not pasted:  # the card's Cancel, or Enter alone at a kernel's input()
            raise AuthError(f"the login to {request.server!r} was cancelled")
        return str(pasted)

    def end(self, ending: login.Ending) -> None:
        question = self.question
        if question is None:
            return
        if question.card is not None and ending == "landed":
            question.card.completed()
        elif question.card is not None and ending == "expired":
            question.card.close("no login arrived in 5 minutes")
        if not question.answer.done():
            question.answer.cancel()  # over: a terminal's wait for a paste ends (nothing left on stdin)
