"""The one background thread and asyncio loop that own every connection.

Connections outlive cells and some frontends do not run the kernel's loop between
cells, so the protocol never runs on the caller's loop. Callers reach it through
``run`` (blocking, from any other thread) or ``wrap`` (awaitable on any other loop).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_CANCEL_GRACE = 2.0  # seconds a Ctrl-C waits for the cancel to reach the server
_here = threading.local()  # .loop_thread: True on a LoopThread's own thread


def on_loop_thread() -> bool:
    """True on the thread of any background loop: nothing there may wait for a person."""
    return bool(getattr(_here, "loop_thread", False))


class LoopThread:
    def __init__(self, name: str = "mcp-notebook") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._thread_id: int | None = None
        self._at_exit: list[Callable[[], Coroutine[Any, Any, Any]]] = []

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None or self._thread is None or not self._thread.is_alive():
            loop = self._start()
        return loop

    def _start(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is not None and self._thread is not None and self._thread.is_alive():
                return self._loop
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def main() -> None:
                _here.loop_thread = True
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                loop.run_forever()

            thread = threading.Thread(target=main, name=self._name, daemon=True)
            thread.start()
            ready.wait()
            self._loop, self._thread, self._thread_id = loop, thread, thread.ident
            atexit.register(self.shutdown)
            return loop

    def in_loop_thread(self) -> bool:
        return self._thread_id == threading.get_ident()

    def submit(self, coro: Coroutine[Any, Any, T]) -> tuple[concurrent.futures.Future[T], Callable[[], None]]:
        """Start ``coro`` on the loop; return its future and a thread-safe cancel."""
        loop = self.loop
        result: concurrent.futures.Future[T] = concurrent.futures.Future()
        task_box: list[asyncio.Task[T]] = []

        def start() -> None:
            if result.cancelled():
                coro.close()
                return
            task = loop.create_task(coro)
            task_box.append(task)
            task.add_done_callback(lambda t: _copy_outcome(t, result))

        def cancel() -> None:
            loop.call_soon_threadsafe(lambda: task_box and task_box[0].cancel())

        loop.call_soon_threadsafe(start)
        return result, cancel

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coro`` on the loop and block for its result.

        Ctrl-C (KeyboardInterrupt) cancels the coroutine, which tells the server
        (``notifications/cancelled``), waits briefly for that, and re-raises.
        """
        if self.in_loop_thread():
            coro.close()
            raise RuntimeError(
                "a blocking mcp-notebook call was made on its own event loop (from a callback?); "
                "use the async API (the a-prefixed methods) there"
            )
        future, cancel = self.submit(coro)
        try:
            return future.result(timeout)
        except KeyboardInterrupt:
            cancel()
            try:
                future.exception(_CANCEL_GRACE)
            except BaseException:
                pass
            raise

    def wrap(self, coro: Coroutine[Any, Any, T]) -> Coroutine[Any, Any, T]:
        """``coro`` made awaitable from any event loop: it runs on the background loop."""
        if self.in_loop_thread():
            return coro  # already there: no hop, no extra frame
        return self._awaited_from_elsewhere(coro)

    async def _awaited_from_elsewhere(self, coro: Coroutine[Any, Any, T]) -> T:
        future, cancel = self.submit(coro)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            cancel()
            raise

    def call_at_exit(self, factory: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        self._at_exit.append(factory)

    def shutdown(self) -> None:
        """Close what registered for it, then stop the loop. Runs at interpreter exit."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None or not thread.is_alive():
            return
        for factory in self._at_exit:
            try:
                future, _ = self.submit(factory())
                future.result(10)
            except BaseException:
                pass
        loop.call_soon_threadsafe(loop.stop)
        thread.join(2)
        if not thread.is_alive():
            loop.close()
        self._loop = self._thread = self._thread_id = None


def _copy_outcome(task: asyncio.Task[T], future: concurrent.futures.Future[T]) -> None:
    if future.cancelled():
        return
    if task.cancelled():
        future.cancel()
        return
    exc = task.exception()
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(task.result())


_default: LoopThread | None = None
_default_lock = threading.Lock()


def default_loop() -> LoopThread:
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = LoopThread()
    return _default
