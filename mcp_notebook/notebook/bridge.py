"""The UI bridge: how a waiting cell shows a card and receives the person's answer.

A widget click reaches the kernel as a comm message on the shell channel, which is busy
running the cell; whether it gets through depends on the kernel (measured):

- ipykernel 6: only if the cell itself processes UI events while it blocks (jupyter-ui-poll);
- ipykernel 7.0-7.3: a blocked or awaiting cell gets clicks the frontend sends on a
  subshell (JupyterLab >= 4.4, Notebook >= 7.4 do);
- ipykernel >= 7.4: an awaiting cell gets them; a blocked one never does.

So the bridge picks per kernel and per context (a blocking call, or an ``await``): widgets
where clicks can arrive, ``input()`` on stdin where they cannot (it works in JupyterLab,
Notebook, VS Code, Colab and terminal IPython), and the headless policy where nobody can
answer, saying so in one line. The magics that can prompt are made awaitable on ipykernel 7
(see transform.py), so they use widgets there.

A frontend that sends ``allow_stdin=False`` is either a headless runner (nbclient,
papermill) or one that shows widgets but has no ``input()`` (Voilà); frontend.py tells them
apart by whether a widget manager connected. The latter gets cards wherever clicks reach the
cell, and the headless policy, with a line saying what would show a card, where they cannot
(a blocking call on ipykernel >= 7.4).

Questions the server asks during a call arrive on the background loop; they are handed to
the cell that waits for that call, which shows them: output then lands in the right cell.

A server can flood a call with notifications: a call prints at most ``log_lines`` of its log
messages (the rest are counted in one line at its end, and kept for ``%mcp logs``), and its
progress bars show the latest state at most every ``PROGRESS_EVERY`` seconds (and the last
one always), so that 100,000 notifications cost about as much as a few.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import enum
import json
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from IPython import get_ipython
from IPython.display import display

from ..core.links import link_problem
from ..core.loopback import Callback
from ..core.oauth import LoginRequest
from ..core.session import LOG_SIZE
from ..core.text import printable
from ..errors import AuthError, LoginRequired, RequestCancelled, RPCError
from ..runtime.interaction import ApprovalAnswer, ApprovalRequest, Interaction, Start, headless_approval
from ..runtime.loop import on_loop_thread
from ..runtime.terminal import stdin_is_terminal
from . import console, frontend

T = TypeVar("T")
PROGRESS_EVERY = 0.25  # seconds between updates of a call's progress bars
Bar = tuple[str, str]  # a progress bar: (server, tool)


class Mode(str, enum.Enum):
    WIDGET_AWAIT = "widgets (awaiting cell)"
    WIDGET_BLOCK = "widgets (blocked cell, clicks on a subshell)"
    WIDGET_POLL = "widgets (polling UI events)"
    STDIN = "stdin"
    HEADLESS = "headless"
    HEADLESS_BLOCKED = "headless (widgets show, but a blocked cell gets no clicks and there is no stdin)"

    @property
    def headless(self) -> bool:
        return self in (Mode.HEADLESS, Mode.HEADLESS_BLOCKED)


BLOCKED_NOTE = (
    "mcp-notebook: this frontend shows widgets but has no input(), and on ipykernel >= 7.4 a blocking call gets no "
    "clicks, so the policy answers; in a cell, the %mcp magics or `await client[server].acall_tool(...)` show a card"
)


def ipykernel_version() -> tuple[int, int] | None:
    try:
        import ipykernel
    except ImportError:
        return None
    parts = ipykernel.__version__.split(".")
    return int(parts[0]), int(parts[1])


def choose_mode(setting: str, in_async: bool) -> Mode:
    """The mechanism for this kernel and context; ``setting`` may force one."""
    forced = {"widgets": None, "stdin": Mode.STDIN, "headless": Mode.HEADLESS}.get(setting)
    if forced is not None:
        return forced
    shell = get_ipython()
    kernel = getattr(shell, "kernel", None)
    if kernel is None:  # terminal IPython, or plain Python: a person types only on a terminal
        return Mode.STDIN if stdin_is_terminal() else Mode.HEADLESS  # `ipython x.ipy < /dev/null`: headless
    version = ipykernel_version() or (6, 0)
    if not getattr(kernel, "_allow_stdin", False) and setting != "widgets":
        if not frontend.widget_manager_connected():
            return Mode.HEADLESS  # a headless runner: no frontend to click, no stdin to type
        if not in_async and version >= (7, 4):
            return Mode.HEADLESS_BLOCKED  # widgets show (Voilà), but no click reaches a blocked cell
    if version[0] < 7:
        return Mode.WIDGET_POLL
    if in_async:
        return Mode.WIDGET_AWAIT
    if version < (7, 4):
        return Mode.WIDGET_BLOCK
    return Mode.STDIN if setting != "widgets" else Mode.WIDGET_BLOCK


@dataclass
class Question:
    """A card to show and its answer. ``kind``: approval, elicitation, url, sampling."""

    kind: str
    server: str
    params: Any
    answer: concurrent.futures.Future[Any] = field(default_factory=concurrent.futures.Future)
    card: Any = None


class _Waiter:
    """A cell waiting for a call: what the background loop hands it arrives here."""

    def __init__(
        self, server: str | None, loop: asyncio.AbstractEventLoop | None = None, blocking: bool = False
    ) -> None:
        self.cancel: Callable[[], None] = lambda: None
        self.future: concurrent.futures.Future[Any] | None = None
        self.server = server
        self.loop = loop
        # A blocking request is woken by its pipe and needs no lock-and-condition queue.
        self.inbox: Any = asyncio.Queue() if loop is not None else collections.deque() if blocking else queue.Queue()
        self.progress: dict[Bar, Any] = {}  # the cards shown
        self.wake_fd: int | None = None  # the write end of a blocking request's wake-up pipe
        # Posted from the background loop (or a blocking request's pump), read by the cell.
        self.lock = threading.Lock()
        self.bars: dict[Bar, tuple[float, float | None, str | None]] = {}  # latest states not shown yet
        self.bars_posted = False  # a "progress" item is on its way, or the cell holds it back
        self.shown_at = -PROGRESS_EVERY  # when the cell last updated the bars (time.monotonic)
        self.logs_posted = 0
        self.logs_held = 0  # log messages past the cell's limit: counted, not printed

    def post(self, kind: str, item: Any) -> None:
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.inbox.put_nowait, (kind, item))
        elif isinstance(self.inbox, collections.deque):
            self.inbox.append((kind, item))
            fd = self.wake_fd
            if fd is not None:
                try:
                    os.write(fd, b"!")  # wakes the blocking request's pump
                except OSError:
                    pass  # already awake (the pipe is full), or gone
        else:
            self.inbox.put((kind, item))

    def post_progress(self, bar: Bar, state: tuple[float, float | None, str | None]) -> None:
        """Keep a bar's latest state; one "progress" item stands for all of them until the
        cell takes them, so a flood of notifications posts almost nothing."""
        with self.lock:
            self.bars[bar] = state
            if self.bars_posted:
                return
            self.bars_posted = True
        self.post("progress", None)

    def take_progress(self) -> dict[Bar, tuple[float, float | None, str | None]]:
        with self.lock:
            bars, self.bars, self.bars_posted = self.bars, {}, False
        return bars

    def progress_due(self) -> float | None:
        """Seconds until the bars' waiting states should be shown (0: now); None: none wait."""
        if not self.bars_posted:
            return None
        return max(0.0, self.shown_at + PROGRESS_EVERY - time.monotonic())

    def post_log(self, server: str, params: dict[str, Any], limit: int) -> None:
        with self.lock:
            if self.logs_posted >= limit:
                self.logs_held += 1
                return
            self.logs_posted += 1
        self.post("log", (server, params))


def _outcome(future: concurrent.futures.Future[T], waiter: _Waiter) -> T:
    if future.cancelled():  # the Cancel button on a progress bar
        raise RequestCancelled(
            f"cancelled{f' the call to {waiter.server}' if waiter.server else ''}; the server was told"
        )
    return future.result()


@contextlib.contextmanager
def _ticking() -> Iterator[None]:
    """Wake the running loop every 0.1 s while an awaiting cell waits.

    ipykernel's SIGINT handler for an awaiting cell schedules the cancel with a plain
    ``call_soon``, which does not wake a loop asleep in select(): the interrupt would wait
    until something else woke the loop, forever while a card waits for a person
    (measured on ipykernel 7.3 and 7.4). A timer bounds that wait."""
    loop = asyncio.get_running_loop()
    handle: asyncio.TimerHandle | None = None

    def tick() -> None:
        nonlocal handle
        handle = loop.call_later(0.1, tick)

    tick()
    try:
        yield
    finally:
        if handle is not None:
            handle.cancel()


@contextlib.contextmanager
def _sigint_held() -> Iterator[Callable[[], bool]]:
    """Ctrl-C only sets a flag inside (on the main thread); the caller raises it where an
    interrupt can be handled. Yields: was there one?"""
    interrupted = False

    def hold(signum: int, frame: Any) -> None:
        nonlocal interrupted
        interrupted = True

    previous = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
    if previous is not None:
        signal.signal(signal.SIGINT, hold)
    try:
        yield lambda: interrupted
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def _ui_poll() -> Iterator[Callable[[], None]]:
    """jupyter-ui-poll's event pump (ipykernel 6), with Ctrl-C held back while it pumps.

    A KeyboardInterrupt raised inside its pump leaves a coroutine never awaited (asyncio
    then prints warnings into the cell) and can land before a card is closed; so here
    SIGINT only sets a flag, and the interrupt is raised between pumps."""
    from jupyter_ui_poll import ui_events

    with _sigint_held() as interrupted, ui_events() as poll:

        def pump() -> None:
            poll(10)
            if interrupted():
                raise KeyboardInterrupt

        yield pump
    if interrupted():
        raise KeyboardInterrupt


class _BlockingWaker:
    """A blocking request's side of a waiter (core.session.Waker): the request pumps the
    server's pipe and this pipe together, and serves the waiter whenever it is woken."""

    def __init__(self, interaction: NotebookInteraction, waiter: _Waiter, pipe: tuple[int, int]) -> None:
        self.interaction, self.waiter = interaction, waiter
        self.read_fd, waiter.wake_fd = pipe

    @property
    def cancel(self) -> Callable[[], None]:
        return self.waiter.cancel

    @cancel.setter
    def cancel(self, fn: Callable[[], None]) -> None:
        self.waiter.cancel = fn

    def fileno(self) -> int:
        return self.read_fd

    def interval(self) -> float | None:
        # While a Cancel button shows on a kernel where a blocked cell only gets clicks by
        # polling (ipykernel 6), come back often to poll; and when held-back progress is due.
        due = self.waiter.progress_due()
        if self.waiter.progress and choose_mode(self.interaction.mode_setting, False) is Mode.WIDGET_POLL:
            return 0.05 if due is None else min(due, 0.05)
        return due

    def serve(self, drain: bool = True) -> None:
        if drain:
            try:
                while os.read(self.read_fd, 512):
                    pass
            except (BlockingIOError, OSError):
                pass
        inbox: collections.deque[tuple[str, Any]] = self.waiter.inbox
        while inbox:
            kind, item = inbox.popleft()
            self.interaction._handle(self.waiter, kind, item, in_async=False)
        self.interaction._handle(self.waiter, "progress", None, in_async=False)  # held back, now due?
        if self.waiter.progress and choose_mode(self.interaction.mode_setting, False) is Mode.WIDGET_POLL:
            with _ui_poll() as pump:
                pump()


_pipes = threading.local()


def _wake_pipe() -> tuple[int, int]:
    """One wake-up pipe per thread, kept: a blocking call should not pay for a new one."""
    pipe = getattr(_pipes, "pipe", None)
    if pipe is None:
        pipe = os.pipe()
        for fd in pipe:
            os.set_blocking(fd, False)
        _pipes.pipe = pipe
    return pipe


class NotebookInteraction(Interaction):
    """The Interaction the magics install: cards in the cell, or stdin, or the policy."""

    services_prompts = True
    shows_progress = True

    def __init__(self) -> None:
        self.mode_setting: Literal["auto", "widgets", "stdin", "headless"] = "auto"
        self.headless_approval: Literal["deny", "allow"] = "deny"
        self.headless_elicitation: Literal["decline", "cancel"] = "decline"
        self.sampler: Callable[[dict[str, Any]], Any] | None = None  # drafts a sampling reply
        self.sampling_needs_approval = True
        self.show_logs = True
        self.log_lines = 50  # log messages a call prints in its cell
        self._waiters: list[_Waiter] = []
        self._lock = threading.Lock()
        self._url_cards: dict[str, Any] = {}

    # -- approval (in the caller's context, before anything is sent) ---------------------

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        answer: ApprovalAnswer = self._ask_now(Question("approval", request.server, request), in_async=False)
        return answer

    async def aapprove(self, request: ApprovalRequest) -> ApprovalAnswer:
        try:
            answer: ApprovalAnswer = await self._aask_now(Question("approval", request.server, request))
        except asyncio.CancelledError:
            # An interrupted awaiting cell: one line instead of a bare CancelledError.
            raise RequestCancelled(
                f"interrupted before {request.server}.{request.tool} was approved; nothing was sent"
            ) from None
        return answer

    # -- waiting for a call -------------------------------------------------------------

    @contextlib.contextmanager
    def blocking(self, server: str | None) -> Iterator[_BlockingWaker]:
        """For a blocking request that reads its own reply (the fast path): listen for the
        server's questions while it waits, and answer them on this thread."""
        waiter = _Waiter(server, blocking=True)
        waker = _BlockingWaker(self, waiter, _wake_pipe())
        self._push(waiter)
        try:
            yield waker
            waker.serve(drain=False)  # anything that came with the reply (a last log line)
        except KeyboardInterrupt:
            self._close_all(waiter, "interrupted")
            raise
        finally:
            waiter.wake_fd = None
            self._pop(waiter)

    def wait(self, start: Start[T], server: str | None = None) -> T:
        waiter = _Waiter(server)
        self._push(waiter)  # listening before the work starts: the server may ask at once
        try:
            future, waiter.cancel = start()
            waiter.future = future
            future.add_done_callback(lambda _: waiter.post("done", None))
            while True:
                kind, item = self._next(waiter)
                if kind == "done":
                    return _outcome(future, waiter)
                self._handle(waiter, kind, item, in_async=False)
        except KeyboardInterrupt:
            waiter.cancel()
            self._close_all(waiter, "interrupted")
            if waiter.future is not None:
                try:
                    waiter.future.exception(2)  # let the cancel reach the server
                except BaseException:
                    pass
            raise
        finally:
            self._pop(waiter)

    def _next(self, waiter: _Waiter) -> tuple[str, Any]:
        """The next thing for a blocked cell. While a progress bar (with Cancel) shows on a
        kernel where a blocked cell only gets clicks by polling (ipykernel 6), poll."""
        inbox: queue.Queue[tuple[str, Any]] = waiter.inbox
        while True:
            if not waiter.progress or choose_mode(self.mode_setting, in_async=False) is not Mode.WIDGET_POLL:
                try:
                    return inbox.get(timeout=waiter.progress_due())
                except queue.Empty:
                    return "progress", None  # held-back progress is due
            with _ui_poll() as pump:
                while True:
                    try:
                        return inbox.get(timeout=0.05)
                    except queue.Empty:
                        if waiter.progress_due() == 0:
                            return "progress", None
                        pump()

    async def await_(self, start: Start[T], server: str | None = None) -> T:
        if on_loop_thread():
            # Its questions would be answered here, blocking every connection (a bug: fail, not hang).
            raise RuntimeError("mcp-notebook waited for a call on its background loop's thread; please report this bug")
        waiter = _Waiter(server, asyncio.get_running_loop())
        self._push(waiter)
        try:
            future, waiter.cancel = start()
            waiter.future = future
            future.add_done_callback(lambda _: waiter.post("done", None))
            with _ticking():
                while True:
                    try:
                        kind, item = await asyncio.wait_for(waiter.inbox.get(), waiter.progress_due())
                    except asyncio.TimeoutError:  # (not yet the builtin TimeoutError on Python 3.10)
                        kind, item = "progress", None  # held-back progress is due
                    if kind == "done":
                        return _outcome(future, waiter)
                    if kind == "question":
                        await self._ahandle_question(item)
                    else:
                        self._handle(waiter, kind, item, in_async=True)
        except (KeyboardInterrupt, asyncio.CancelledError):
            # An interrupted awaiting cell is a cancelled task: say it in one line.
            waiter.cancel()
            self._close_all(waiter, "interrupted")
            raise RequestCancelled(
                f"interrupted{f' the call to {waiter.server}' if waiter.server else ''}; the server was told"
            ) from None
        finally:
            self._pop(waiter)

    def _push(self, waiter: _Waiter) -> None:
        with self._lock:
            self._waiters.append(waiter)

    def _pop(self, waiter: _Waiter) -> None:
        with self._lock:
            if waiter in self._waiters:
                self._waiters.remove(waiter)
        self._show_progress(waiter)  # the last state, whatever was held back
        for card in waiter.progress.values():
            card.finish("done")
        if waiter.logs_held:
            total = waiter.logs_posted + waiter.logs_held
            lines = f" --lines {min(total, LOG_SIZE)}" if total > 200 else ""  # 200: what %mcp logs shows
            kept = f" (it keeps the last {LOG_SIZE:,})" if total > LOG_SIZE else ""
            print(f"… {waiter.logs_held:,} more log messages from {waiter.server} not shown here: "
                  f"%mcp logs {waiter.server}{lines}{kept}")  # fmt: skip

    def _current(self) -> _Waiter | None:
        with self._lock:
            return self._waiters[-1] if self._waiters else None

    def _close_all(self, waiter: _Waiter, note: str) -> None:
        for card in waiter.progress.values():
            card.finish(note)

    def _handle(self, waiter: _Waiter, kind: str, item: Any, in_async: bool) -> None:
        if kind == "question":
            question: Question = item
            if question.answer.done():
                return  # withdrawn, or over (the browser came back) before it was shown
            try:
                question.answer.set_result(self._ask_now(question, in_async=in_async))
            except BaseException as e:
                if not question.answer.done():
                    question.answer.set_exception(e if isinstance(e, Exception) else RequestCancelled("interrupted"))
                if isinstance(e, KeyboardInterrupt):
                    raise
        elif kind == "progress":
            if waiter.progress_due() == 0:
                self._show_progress(waiter)
            # else: shown when due (the waits above wake for it) or when the call ends
        elif kind == "log":
            server, params = item
            data = params.get("data")
            text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
            logger = f" {params['logger']}:" if params.get("logger") else ""
            lines = [c for c in waiter.progress.values() if isinstance(c, console.ProgressLine)]
            for line in lines:
                line.clear()  # the log line takes its place; it is drawn again below
            print(printable(f"[{server} {params.get('level', 'info')}]{logger} {text}"))
            for line in lines:
                line.redraw()
        elif kind == "url-complete":
            card = self._url_cards.pop(item, None)
            if card is not None:
                card.completed()

    def _show_progress(self, waiter: _Waiter) -> None:
        """Update the bars to their latest states (a card for a new one)."""
        waiter.shown_at = time.monotonic()
        for (server, tool), (progress, total, message) in waiter.take_progress().items():
            card = waiter.progress.get((server, tool))
            if card is None and console.in_terminal():
                card = waiter.progress[(server, tool)] = console.ProgressLine(server, tool)  # Ctrl-C cancels
            elif card is None:
                from .cards import ProgressCard

                # Held while the bar is built and shown: an interrupt then (its Cancel button
                # may already show) would leave a bar that is not known, so never closed.
                with _sigint_held() as interrupted:
                    card = waiter.progress[(server, tool)] = ProgressCard(server, tool, lambda: waiter.cancel())
                    display(card.widget)
                if interrupted():
                    raise KeyboardInterrupt
            card.update(progress, total, message)

    async def _ahandle_question(self, question: Question) -> None:
        try:
            question.answer.set_result(await self._aask_now(question))
        except Exception as e:
            if not question.answer.done():
                question.answer.set_exception(e)

    # -- asking, by mechanism -----------------------------------------------------------

    def _ask_now(self, question: Question, in_async: bool) -> Any:
        mode = choose_mode(self.mode_setting, in_async)
        if mode.headless:
            if mode is Mode.HEADLESS_BLOCKED:
                print(BLOCKED_NOTE, file=sys.stderr)
            return self._headless(question)
        if on_loop_thread():
            # Waiting here for a person would block every connection (a bug: fail, not hang).
            raise RuntimeError(f"mcp-notebook asked a {question.kind} question on its background loop's thread; "
                               "please report this bug")  # fmt: skip
        if mode is Mode.STDIN:
            return console.ask(question, self)
        card = None
        done = threading.Event()
        try:
            # An interrupt while the card is built or shown would leave it half made and
            # asking: it is held until the card can be closed.
            with _sigint_held() as interrupted:
                card = self._card(question)
                card.on_answer(lambda _: done.set())
                display(card.widget)
            if interrupted():
                raise KeyboardInterrupt
            if mode is Mode.WIDGET_POLL:
                with _ui_poll() as pump:
                    while not done.is_set() and not question.answer.done():
                        pump()
                        time.sleep(0.02)
            else:
                while not done.wait(0.1) and not question.answer.done():
                    pass
        except KeyboardInterrupt:
            if card is not None:
                card.close("interrupted")
            raise
        if not card.answered:
            card.close("withdrawn by the server")
        return self._result(question, card.answer)

    async def _aask_now(self, question: Question) -> Any:
        mode = choose_mode(self.mode_setting, in_async=True)
        if mode is not Mode.WIDGET_AWAIT:
            return self._ask_now(question, in_async=True)
        card = self._card(question)
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[Any] = loop.create_future()

        def settle(answer: Any) -> None:
            if not answered.done():
                answered.set_result(answer)

        card.on_answer(lambda a: loop.call_soon_threadsafe(settle, a))
        question.answer.add_done_callback(lambda _: loop.call_soon_threadsafe(settle, None))
        try:
            display(card.widget)
            with _ticking():
                await answered
        except (asyncio.CancelledError, KeyboardInterrupt):
            card.close("interrupted")
            raise
        if not card.answered:
            card.close("withdrawn by the server")
        return self._result(question, card.answer)

    def _card(self, question: Question) -> Any:
        from . import cards

        card: cards.Card
        if question.kind == "approval":
            card = cards.ApprovalCard(question.params)
        elif question.kind == "login":
            card = cards.LoginCard(question.params)
        elif question.kind == "url":
            card = url_card = cards.UrlCard(question.server, question.params)
            if url_card.elicitation_id:
                self._url_cards[url_card.elicitation_id] = url_card
        elif question.kind == "sampling":
            draft, model = self._draft(question.params)
            card = cards.SamplingCard(question.server, question.params, draft, model)
        else:
            card = cards.ElicitationCard(question.server, question.params)
        question.card = card
        return card

    def _draft(self, params: dict[str, Any]) -> tuple[str, str]:
        if self.sampler is None:
            return "", "human"
        reply = self.sampler(params)
        if isinstance(reply, dict):
            content = reply.get("content") or {}
            return str(content.get("text", "")), str(reply.get("model", "callback"))
        return str(reply), "callback"

    def _result(self, question: Question, answer: Any) -> Any:
        if question.kind == "sampling" and answer is None:
            raise RPCError(-1, "the user declined the sampling request")
        if question.kind in ("elicitation", "url") and answer is None:
            return {"action": "cancel"}
        if question.kind == "approval" and answer is None:
            return "deny"
        return answer  # a login: the address landed on, or None (cancelled, or the listener got it)

    def _headless(self, question: Question) -> Any:
        if question.kind == "approval":
            return headless_approval(question.params, self.headless_approval)
        if question.kind == "login":
            raise LoginRequired(f"server {question.server!r} needs a login and nobody can log in here")
        if question.kind == "sampling":
            how = (
                "%config MCPMagics.sampling_needs_approval = False sends the sampler's drafts"
                if self.sampler is not None
                else "set get_client().interaction.sampler to answer with your own code"
            )
            print(f"mcp-notebook: {question.server} asked for a model reply and nobody can approve one here: "
                  f"declined ({how})", file=sys.stderr)  # fmt: skip
            raise RPCError(-1, "no one can answer sampling requests here (headless)")
        action = self.headless_elicitation
        print(f"mcp-notebook: {question.server} asked for input and nobody can answer here: {action}",
              file=sys.stderr)  # fmt: skip
        return {"action": action}

    # -- what the background loop calls ------------------------------------------------

    def progress(self, server: str, tool: str, progress: float, total: float | None, message: str | None) -> None:
        waiter = self._current()
        if waiter is not None:
            waiter.post_progress((server, tool), (progress, total, message))

    def notification(self, server: str, method: str, params: dict[str, Any]) -> None:
        waiter = self._current()
        if waiter is None:
            return
        if method == "notifications/message" and self.show_logs and waiter.server == server:
            waiter.post_log(server, params, self.log_lines)  # only in the cell of a call to that server
        elif method == "notifications/elicitation/complete":
            waiter.post("url-complete", params.get("elicitationId"))

    def show_urls(self, server: str, elicitations: list[dict[str, Any]]) -> None:
        """Pages a server needs visited before a call can work (error -32042): shown, not
        waited for (the call already failed; the person runs it again afterwards)."""
        mode = choose_mode(self.mode_setting, in_async=False)
        if mode is Mode.STDIN or mode.headless:
            for e in elicitations:
                problem = link_problem(e.get("url"))
                warning = f" (⚠ do not open it: {problem})" if problem else ""
                line = f"{server}: {e.get('message', 'open this page')}: {e.get('url')}{warning}"
                print(printable(line), file=sys.stderr)
            return
        from .cards import UrlCard

        for e in elicitations:
            card = UrlCard(server, e)
            if card.elicitation_id:
                self._url_cards[card.elicitation_id] = card
            display(card.widget)

    # -- OAuth login (asked from the background loop, shown in the waiting cell) --------

    def can_login(self) -> bool:
        return not choose_mode(self.mode_setting, in_async=False).headless

    async def alogin(self, request: LoginRequest) -> str:
        """The login card in the cell that waits; done when the browser comes back to the
        loopback listener, or when the person pastes the address it landed on."""
        waiter = self._current()
        if waiter is None:
            raise LoginRequired(f"server {request.server!r} needs a login: run %mcp login {request.server}")
        callback: Callback | None = Callback(request.redirect_uri)
        try:
            await callback.start()  # type: ignore[union-attr]
        except OSError:
            callback = None  # the port is taken: pasting the address still works
        request.callback = callback
        question = Question("login", request.server, request)
        waiter.post("question", question)
        answered = asyncio.wrap_future(question.answer)
        landed = asyncio.ensure_future(callback.wait()) if callback is not None else None
        try:
            done, _ = await asyncio.wait([f for f in (answered, landed) if f is not None],
                                         return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
            if landed is not None and landed in done and not landed.exception():
                if question.card is not None:
                    question.card.completed()
                if not question.answer.done():
                    question.answer.set_result(None)
                return landed.result()
            url = answered.result() if answered in done else None
            if url is None and callback is not None and callback.result():
                return callback.result()  # type: ignore[return-value]
            if landed is not None and landed in done:  # the listener's 5 minutes are up
                if question.card is not None:
                    question.card.close("no login arrived in 5 minutes")
                raise AuthError(f"no login to {request.server!r} arrived in 5 minutes; run %mcp login {request.server}")
            if not url:
                raise AuthError(f"the login to {request.server!r} was cancelled")
            return str(url)
        finally:
            if not question.answer.done():
                question.answer.cancel()  # over: a terminal's wait for a paste ends (nothing left on stdin)
            if landed is not None:
                landed.cancel()
            if callback is not None:
                callback.close()

    async def ask_from_server(self, kind: str, server: str, params: dict[str, Any]) -> Any:
        """A server's request (elicitation, sampling) on the background loop: hand it to
        the waiting cell and wait for the answer; with no cell waiting, the policy."""
        if kind == "sampling" and self.sampler is not None and not self.sampling_needs_approval:
            draft, model = self._draft(params)
            return {"role": "assistant", "content": {"type": "text", "text": draft}, "model": model,
                    "stopReason": "endTurn"}  # fmt: skip
        waiter = self._current()
        question = Question(kind, server, params)
        if waiter is None:
            return self._headless(question)
        waiter.post("question", question)
        try:
            return await asyncio.wrap_future(question.answer)
        except asyncio.CancelledError:  # the server withdrew it (notifications/cancelled)
            if question.card is not None:
                question.card.close("withdrawn by the server")
            question.answer.cancel()
            raise
