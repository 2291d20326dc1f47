"""The machinery of a cell that waits: its waiter (what the background loop hands it, and
the progress bars and log lines it shows), the steps it waits on (blocking or awaiting, see
commands/steps.py), the wake-up pipe of a blocking request, Ctrl-C held where an interrupt would
leave a card half made, the ticking an awaiting cell needs, and jupyter-ui-poll's pump.

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
import json
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ..core.safety.text import printable
from ..core.session.session import LOG_SIZE
from ..errors import RequestCancelled
from . import console
from .places import say, show

__all__ = [
    "PROGRESS_EVERY",
    "BlockingWaker",
    "CardAnswer",
    "Item",
    "NextItem",
    "Waiter",
    "outcome",
    "sigint_held",
    "ticking",
    "ui_poll",
    "wake_pipe",
]

T = TypeVar("T")
PROGRESS_EVERY = 0.25  # seconds between updates of a call's progress bars
Bar = tuple[str, str]  # a progress bar: (server, tool)
BarState = tuple[float, float | None, str | None]  # progress, total, message
Item = tuple[str, Any]  # what the loop hands a waiter: ("question", q), ("log", …), ("done", None)…


class Waiter:
    """A cell waiting for a call: what the background loop hands it arrives here, and the
    progress bars and log lines it shows are counted here."""

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
        self.bars: dict[Bar, BarState] = {}  # latest states not shown yet
        self.bars_posted = False  # a "progress" item is on its way, or the cell holds it back
        self.shown_at = -PROGRESS_EVERY  # when the cell last updated the bars (time.monotonic)
        self.logs_posted = 0
        self.logs_held = 0  # log messages past the cell's limit: counted, not printed
        self.ending: str | None = None  # what the bars say at the end, when not "done"

    # -- posted from the background loop ------------------------------------------------

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

    def post_progress(self, bar: Bar, state: BarState) -> None:
        """Keep a bar's latest state; one "progress" item stands for all of them until the
        cell takes them, so a flood of notifications posts almost nothing."""
        with self.lock:
            self.bars[bar] = state
            if self.bars_posted:
                return
            self.bars_posted = True
        self.post("progress", None)

    def post_log(self, server: str, params: dict[str, Any], limit: int, tag: str | None = None) -> None:
        with self.lock:
            if self.logs_posted >= limit:
                self.logs_held += 1
                return
            self.logs_posted += 1
        self.post("log", (server, params, tag))

    # -- shown by the cell ----------------------------------------------------------------

    def progress_due(self) -> float | None:
        """Seconds until the bars' waiting states should be shown (0: now); None: none wait."""
        if not self.bars_posted:
            return None
        return max(0.0, self.shown_at + PROGRESS_EVERY - time.monotonic())

    def show_progress(self) -> None:
        """Update the bars to their latest states (a card for a new one)."""
        self.shown_at = time.monotonic()
        with self.lock:
            bars, self.bars, self.bars_posted = self.bars, {}, False
        for (server, tool), (progress, total, message) in bars.items():
            card = self.progress.get((server, tool))
            if card is None and console.in_terminal():
                card = self.progress[(server, tool)] = console.ProgressLine(server, tool)  # Ctrl-C cancels
            elif card is None:
                from .cards import ProgressCard

                # Held while the bar is built and shown: an interrupt then (its Cancel button
                # may already show) would leave a bar that is not known, so never closed.
                with sigint_held() as interrupted:
                    card = self.progress[(server, tool)] = ProgressCard(server, tool, self.cancel_from_bar)
                    show(card.widget)
                if interrupted():
                    raise KeyboardInterrupt
            card.update(progress, total, message)

    def show_log(self, server: str, params: dict[str, Any], tag: str | None = None) -> None:
        """One log line; ``tag``: which of the calls in flight it came with (a map's row)."""
        data = params.get("data")
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        logger = f" {params['logger']}:" if params.get("logger") else ""
        if tag is not None:
            logger = f" {tag}:{logger}"
        lines = [c for c in self.progress.values() if isinstance(c, console.ProgressLine)]
        for line in lines:
            line.clear()  # the log line takes its place; it is drawn again below
        say(printable(f"[{server} {params.get('level', 'info')}]{logger} {text}"))
        for line in lines:
            line.redraw()

    def cancel_from_bar(self) -> None:
        """A bar's Cancel: the call is cancelled, and its bars end saying so."""
        self.ending = "cancelled"
        self.cancel()

    def close_bars(self, note: str) -> None:
        """Close the bars; the first ending stays (an interrupted or cancelled call's bars
        do not end saying done)."""
        self.ending = self.ending or note
        for card in self.progress.values():
            card.finish(self.ending)

    def finish(self) -> None:
        """The call is over: the bars' last states, and how many log lines were not shown."""
        self.show_progress()  # whatever was held back
        self.close_bars("done")
        if self.logs_held:
            total = self.logs_posted + self.logs_held
            lines = f" --lines {min(total, LOG_SIZE)}" if total > 200 else ""  # 200: what %mcp logs shows
            kept = f" (it keeps the last {LOG_SIZE:,})" if total > LOG_SIZE else ""
            say(f"… {self.logs_held:,} more log messages from {self.server} not shown here: "
                f"%mcp logs {self.server}{lines}{kept}")  # fmt: skip


def outcome(future: concurrent.futures.Future[T], waiter: Waiter) -> T:
    if future.cancelled():  # the Cancel button on a progress bar
        raise RequestCancelled(
            f"cancelled{f' the call to {waiter.server}' if waiter.server else ''}; the server was told"
        )
    return future.result()


# -- the steps a waiting cell takes (see commands/steps.py) ------------------------------------------


class NextItem:
    """The next thing the loop handed a waiter; ("progress", None) when held-back progress
    is due. ``polls()``: a blocked cell gets clicks only by polling (ipykernel 6), so it
    polls while a progress bar (with Cancel) shows."""

    def __init__(self, waiter: Waiter, polls: Callable[[], bool]) -> None:
        self.waiter, self.polls = waiter, polls

    def run(self) -> Item:
        waiter = self.waiter
        inbox: queue.Queue[Item] = waiter.inbox
        while True:
            if not waiter.progress or not self.polls():
                try:
                    return inbox.get(timeout=waiter.progress_due())
                except queue.Empty:
                    return "progress", None
            with ui_poll() as pump:
                while True:
                    try:
                        return inbox.get(timeout=0.05)
                    except queue.Empty:
                        if waiter.progress_due() == 0:
                            return "progress", None
                        pump()

    async def arun(self) -> Item:
        inbox: asyncio.Queue[Item] = self.waiter.inbox
        with ticking():
            try:
                return await asyncio.wait_for(inbox.get(), self.waiter.progress_due())
            except asyncio.TimeoutError:  # (not yet the builtin TimeoutError on Python 3.10)
                return "progress", None


class CardAnswer:
    """A card shown until it is answered, or until ``withdrawn`` is done (the server took its
    question back, or it is over). ``polls``: pump UI events meanwhile (ipykernel 6);
    ``awaits``: an awaiting cell gets the clicks (else it waits as a blocked one would)."""

    def __init__(self, card: Any, withdrawn: concurrent.futures.Future[Any], polls: bool, awaits: bool) -> None:
        self.card, self.withdrawn, self.polls, self.awaits = card, withdrawn, polls, awaits

    def run(self) -> None:
        done = threading.Event()
        self.card.on_answer(lambda _: done.set())
        if self.polls:
            with ui_poll() as pump:
                while not done.is_set() and not self.withdrawn.done():
                    pump()
                    time.sleep(0.02)
        else:
            while not done.wait(0.1) and not self.withdrawn.done():
                pass

    async def arun(self) -> None:
        if not self.awaits:
            return self.run()
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[None] = loop.create_future()

        def settle() -> None:
            if not answered.done():
                answered.set_result(None)

        self.card.on_answer(lambda _: loop.call_soon_threadsafe(settle))
        self.withdrawn.add_done_callback(lambda _: loop.call_soon_threadsafe(settle))
        with ticking():
            await answered


# -- the blocking fast path -----------------------------------------------------------------


class BlockingWaker:
    """A blocking request's side of a waiter (core.session.Waker): the request pumps the
    server's pipe and this pipe together, and ``handle``s what the waiter got whenever it
    is woken. ``polls()`` as for ``NextItem``."""

    def __init__(
        self, waiter: Waiter, pipe: tuple[int, int], handle: Callable[[Item], None], polls: Callable[[], bool]
    ) -> None:
        self.waiter, self.handle, self.polls = waiter, handle, polls
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
        # While a Cancel button shows where a blocked cell only gets clicks by polling,
        # come back often to poll; and when held-back progress is due.
        due = self.waiter.progress_due()
        if self.waiter.progress and self.polls():
            return 0.05 if due is None else min(due, 0.05)
        return due

    def serve(self, drain: bool = True) -> None:
        if drain:
            try:
                while os.read(self.read_fd, 512):
                    pass
            except (BlockingIOError, OSError):
                pass
        inbox: collections.deque[Item] = self.waiter.inbox
        while inbox:
            self.handle(inbox.popleft())
        self.handle(("progress", None))  # held back, now due?
        if self.waiter.progress and self.polls():
            with ui_poll() as pump:
                pump()


_pipes = threading.local()


def wake_pipe() -> tuple[int, int]:
    """One wake-up pipe per thread, kept: a blocking call should not pay for a new one."""
    pipe = getattr(_pipes, "pipe", None)
    if pipe is None:
        pipe = os.pipe()
        for fd in pipe:
            os.set_blocking(fd, False)
        _pipes.pipe = pipe
    return pipe


# -- interrupts and event pumps -------------------------------------------------------------


@contextlib.contextmanager
def ticking() -> Iterator[None]:
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
def sigint_held() -> Iterator[Callable[[], bool]]:
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
def ui_poll() -> Iterator[Callable[[], None]]:
    """jupyter-ui-poll's event pump (ipykernel 6), with Ctrl-C held back while it pumps.

    A KeyboardInterrupt raised inside its pump leaves a coroutine never awaited (asyncio
    then prints warnings into the cell) and can land before a card is closed; so here
    SIGINT only sets a flag, and the interrupt is raised between pumps."""
    from jupyter_ui_poll import ui_events

    with sigint_held() as interrupted, ui_events() as poll:

        def pump() -> None:
            poll(10)
            if interrupted():
                raise KeyboardInterrupt

        yield pump
    if interrupted():
        raise KeyboardInterrupt
