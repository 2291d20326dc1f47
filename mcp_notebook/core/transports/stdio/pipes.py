"""Pipes shared between the event loop and threads that block on a reply: the stdio fast path.

A blocking call on another thread would otherwise cost two thread hops per request
(caller → loop to write, loop → caller with the reply); on a VM each hop is a costly
vCPU wake-up. So any thread may write (``PipeWriter``), and a thread waiting for its
reply may read the pipe itself while nobody else does (``PipeReader.pump``). What holds
it together:

- Who reads: whoever holds ``_read_lock``, the loop by default or one pumping thread. The
  loop, finding the lock taken, stops watching the fd and looks back every ``_PARK_CHECK``
  (``_unpark_when_idle``), so a run of blocking calls costs it no wake-up per reply.
- Order of writes: under one lock, a thread writes straight to the fd only while nothing
  waits in the backlog, else its bytes join it; the loop gathers its own writes a few at a
  time (``_GATHERED``) and flushes the backlog, in order, when the fd can take it.
- Order of reads: what the server sends besides a response (its requests, notifications)
  goes to the loop, in order, through the inbox; a response read on a thread is handled
  there only if the loop has nothing of that connection left to handle, else it is handed
  to the loop too and the pumping thread stops and waits for it there (``_handed_off``).
- Wake-ups: a pumping thread wakes for its pipe, its deadline, or the caller's own wake-up
  fd (a card to show). Nothing else wakes it, so whatever settles its request elsewhere must
  end the pump first: a response it reads and hands off stops it, and so does a question the
  server asks instead of answering (an input-required round, which the loop answers; the
  pump once went on reading until the whole timeout: session/pending.py ``wait_here``).
- Lines: split on newlines, as bytes; one over the size limit is skipped as it streams (its
  head and tail kept to find its id, so its request fails at once, not at its timeout).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from itertools import islice
from typing import Any

from ...protocol import jsonline

_READ_SIZE = 1 << 16
_PARK_CHECK = 0.005  # seconds between the parked loop's looks at a pumped pipe
_IOV_MAX = os.sysconf("SC_IOV_MAX") if hasattr(os, "sysconf") else 16
# Writes the loop gathers before it writes them without waiting for the end of its turn: the
# server starts on the first rows of a map's batch while the loop is still making the rest
# (gathering a whole turn's writes left the server idle meanwhile: measured 1.5x the bare
# floor's wall against 1.3x at 3-8).
_GATHERED = 4
_KEEP = 512  # bytes of an oversized line's head and tail kept to find its id

# Where a response's id sits: first (Python SDKs) or last (TypeScript SDK).
_ID_AT_START = re.compile(rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"[^"\\]*")')
_ID_AT_END = re.compile(rb'"id"\s*:\s*(-?\d+|"[^"\\]*")\s*\}\s*$')


def _reply_id(line: bytearray, text: str) -> int | str | None:
    """The id of the response a line that failed to decode was meant to be, if it shows.

    With its undecodable bytes replaced the line may parse; else the id is looked for where
    the SDKs write it. A line that names a method is the server's own: its id is not ours."""
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        if b'"method"' in line:
            return None
        match = _ID_AT_START.search(line) or _ID_AT_END.search(line)
        found: int | str | None = json.loads(match.group(1)) if match else None
        return found
    if isinstance(message, dict) and "method" not in message and type(message.get("id")) in (int, str):
        return message["id"]  # type: ignore[no-any-return]
    return None


def _why(error: BaseException) -> str:
    if isinstance(error, UnicodeDecodeError):
        return f"byte 0x{error.object[error.start]:02x} at position {error.start} is not UTF-8"
    if isinstance(error, RecursionError):
        return "it is nested too deeply"
    return f"it is not JSON ({str(error)[:100]})"


class PipeWriter:
    """A non-blocking pipe that any thread may write to, in order.

    Writes from another thread go straight to the fd while the pipe has room; the rest
    waits in a backlog that the event loop flushes when the pipe becomes writable. Writes
    on the loop's own thread (made on it) are gathered, a few at a time, and written
    together (once a few are waiting, or once the loop has run what is ready): many calls
    made in one turn of the loop (a map's next rows, a gather) cost a write per few, and a
    wake-up of the server, instead of one each.
    """

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop, on_broken: Callable[[], None] | None = None) -> None:
        os.set_blocking(fd, False)
        self._fd = fd
        self._loop = loop
        # Called on the loop when a write it made later finds the pipe closed (``write``
        # itself returns False when it finds that at once).
        self._on_broken = on_broken
        self._loop_thread = threading.get_ident()
        self._lock = threading.Lock()
        self._backlog: deque[bytes | memoryview] = deque()
        self._armed = False
        self._soon = False  # a flush of the loop's gathered writes is scheduled

    def write(self, data: bytes) -> bool:
        """Queue ``data``; False when the pipe is closed (the reader is gone)."""
        with self._lock:
            if self._fd < 0:
                return False
            if threading.get_ident() == self._loop_thread:
                self._backlog.append(data)  # written with the rest in one writev: no view needed
                if self._armed:
                    return True  # the writable callback writes it, in order
                if len(self._backlog) >= _GATHERED:
                    return not self._write_gathered_locked()
                if not self._soon:
                    self._soon = True
                    self._loop.call_soon(self._flush_gathered)
                return True
            view = memoryview(data)
            if not self._backlog:
                try:
                    view = view[os.write(self._fd, view) :]
                except BlockingIOError:
                    pass
                except OSError:  # EPIPE: the server closed its stdin or exited
                    self._close_locked()
                    return False
                if not view:
                    return True
            self._backlog.append(view)
            if not self._armed:
                self._armed = True
                self._loop.call_soon_threadsafe(self._arm)
            return True

    def _arm(self) -> None:
        with self._lock:
            if self._fd >= 0:
                self._loop.add_writer(self._fd, self._flush)

    def _flush_gathered(self) -> None:
        with self._lock:
            self._soon = False
            if self._armed or self._fd < 0:
                return  # the writable callback writes them, in order
            broken = self._write_gathered_locked()
        if broken and self._on_broken is not None:
            self._on_broken()

    def _write_gathered_locked(self) -> bool:
        """Write the loop's gathered writes (on the loop); what the pipe cannot take now
        waits for it to become writable. True when the pipe turned out closed."""
        broken = self._write_backlog_locked()
        if self._backlog and self._fd >= 0:  # the pipe is full: the rest when it has room
            self._armed = True
            self._loop.add_writer(self._fd, self._flush)
        return broken

    def _flush(self) -> None:
        with self._lock:
            broken = self._write_backlog_locked()
            if not self._backlog:
                self._disarm_locked()
        if broken and self._on_broken is not None:
            self._on_broken()

    def _write_backlog_locked(self) -> bool:
        """Write what the pipe takes; True when it turned out closed. One ``writev`` for
        the whole backlog: nothing is copied, however large the part still unwritten."""
        backlog = self._backlog
        while backlog and self._fd >= 0:
            try:
                if len(backlog) == 1:
                    n = os.write(self._fd, backlog[0])
                else:  # at most IOV_MAX buffers a call (more is EINVAL)
                    n = os.writev(self._fd, backlog if len(backlog) <= _IOV_MAX else list(islice(backlog, _IOV_MAX)))
            except BlockingIOError:
                return False
            except OSError:
                self._close_locked()
                return True
            while n:
                head = backlog[0]
                if n < len(head):
                    backlog[0] = memoryview(head)[n:]
                    return False  # the pipe is full
                n -= len(head)
                backlog.popleft()
        return False

    def _disarm_locked(self) -> None:
        if self._armed and self._fd >= 0:
            self._loop.remove_writer(self._fd)
        self._armed = False

    def _close_locked(self) -> None:
        if self._fd >= 0:
            self._disarm_locked()
            os.close(self._fd)
            self._fd = -1
        self._backlog.clear()

    def close(self) -> None:
        """Close our end; the reader sees EOF. What the pipe takes at once of the unsent data
        goes first (a cancellation the loop gathered a moment ago); the rest is dropped."""
        with self._lock:
            if self._fd >= 0:
                self._write_backlog_locked()
            self._close_locked()


class PipeReader:
    """Newline-delimited JSON from a pipe, read by the loop or by a waiting thread.

    Whoever holds ``_read_lock`` reads and parses. The loop reads by default; a thread
    in ``pump`` takes the lock, and the loop, finding it taken, stops watching the fd
    until threads have stopped pumping.
    """

    def __init__(
        self,
        fd: int,
        loop: asyncio.AbstractEventLoop,
        *,
        limit: Callable[[], int],  # the size a line may have, asked per read (it may change)
        # A message and its line as read; False when it was passed on to the loop rather than
        # handled here (Inbox.deliver): a thread pumping for its reply then waits for it there.
        on_message: Callable[[Any, bytearray | None], bool],
        on_too_large: Callable[[int | str | None, int], None],
        on_garbage: Callable[[str], None],
        on_bad_reply: Callable[[int | str, str], None],
        on_eof: Callable[[], None],
    ) -> None:
        os.set_blocking(fd, False)
        self.limit = limit
        self._fd = fd
        self._loop = loop
        self._on_message = on_message
        self._on_too_large = on_too_large
        self._on_garbage = on_garbage
        self._on_bad_reply = on_bad_reply
        self._on_eof = on_eof
        self._read_lock = threading.Lock()
        self._last_pump = 0.0
        self._handed_off = False
        self._eof = False
        self._buf = bytearray()
        self._discard: list[Any] | None = None  # [head, tail, size] while skipping a long line
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN)
        loop.add_reader(fd, self._loop_readable)

    # -- the loop's side ---------------------------------------------------------------

    def _loop_readable(self) -> None:
        if self._eof:
            self._loop.remove_reader(self._fd)
            return
        if not self._read_lock.acquire(blocking=False):
            # A thread is pumping: stop watching (a level-triggered fd would wake us
            # again and again) and look back now and then.
            self._loop.remove_reader(self._fd)
            self._loop.call_later(_PARK_CHECK, self._unpark_when_idle)
            return
        try:
            if not self._drain():
                self._loop.remove_reader(self._fd)
        finally:
            self._read_lock.release()

    def _unpark_when_idle(self) -> None:
        # Stay parked while threads keep pumping: a run of blocking calls then costs the
        # loop one wake-up per _PARK_CHECK instead of one per reply. Between such calls
        # a notification waits at most that long.
        if self._fd < 0 or self._eof:
            return
        if self._read_lock.locked() or time.monotonic() - self._last_pump < _PARK_CHECK:
            self._loop.call_later(_PARK_CHECK, self._unpark_when_idle)
            return
        self._loop.add_reader(self._fd, self._loop_readable)

    # -- a waiting thread's side -------------------------------------------------------

    def pump(self, done: Callable[[], bool], timeout: float | None, wake_fd: int | None = None) -> bool:
        """Read on this thread until ``done()``, ``timeout`` seconds, or ``wake_fd`` (the
        caller's own wake-up pipe) becomes readable.

        False when this thread cannot read (another reader has the pipe, or it is at
        EOF): then wait for the reply some other way.
        """
        if self._eof or not self._read_lock.acquire(blocking=False):
            return False
        if wake_fd is not None:
            self._poll.register(wake_fd, select.POLLIN)
        try:
            deadline = None if timeout is None else time.monotonic() + timeout
            while not done():
                wait_ms = None if deadline is None else max(0, int((deadline - time.monotonic()) * 1000) + 1)
                events = self._poll.poll(wait_ms)
                if wake_fd is not None and any(fd == wake_fd for fd, _ in events):
                    return True  # the caller has something to do; it will pump again
                if events and not self._drain():
                    return False  # EOF
                if self._handed_off:
                    self._handed_off = False
                    return False
                if deadline is not None and time.monotonic() >= deadline:
                    break
            return True
        finally:
            if wake_fd is not None:
                self._poll.unregister(wake_fd)
            self._last_pump = time.monotonic()
            self._read_lock.release()

    # -- reading and splitting (under _read_lock) ---------------------------------------

    def _drain(self) -> bool:
        """Read what is there; False at EOF."""
        while self._fd >= 0:
            try:
                data = os.read(self._fd, _READ_SIZE)
            except BlockingIOError:
                return True
            except OSError:
                data = b""
            if not data:
                self._eof = True
                self._on_eof()
                return False
            self._feed(data)
            if len(data) < _READ_SIZE:
                return True
        return False

    def _feed(self, data: bytes) -> None:
        if self._discard is not None:
            i = data.find(b"\n")
            if i < 0:
                self._discard[1] = (self._discard[1] + data)[-_KEEP:]
                self._discard[2] += len(data)
                return
            head, tail, size = self._discard
            self._discard = None
            self._too_large(head, (tail + data[:i])[-_KEEP:], size + i)
            data = data[i + 1 :]
        buf = self._buf
        search_from = len(buf)
        buf += data
        start = 0
        limit = self.limit()
        i = buf.find(b"\n", search_from)
        while i >= 0:
            if i - start > limit:
                self._too_large(bytes(buf[start : start + _KEEP]), bytes(buf[i - _KEEP : i]), i - start)
            elif i > start:
                self._line(buf[start:i])
            start = i + 1
            i = buf.find(b"\n", start)
        if start:
            del buf[:start]
        if len(buf) > limit:
            self._discard = [bytes(buf[:_KEEP]), bytes(buf[-_KEEP:]), len(buf)]
            buf.clear()

    def _line(self, line: bytearray) -> None:
        try:
            message = jsonline.decode(line)
        except (ValueError, RecursionError) as e:  # RecursionError: nested too deep to parse
            text = line.decode("utf-8", "replace").strip()
            if text:
                self._on_garbage(text)
                rid = _reply_id(line, text)
                if rid is not None:  # a broken reply: its request fails now, not at its timeout
                    self._on_bad_reply(rid, _why(e))
            return
        if isinstance(message, dict):
            # ``line``: a fresh copy of the buffer's bytes, kept as it is. A response passed on
            # to the loop: a pumping thread stops, and waits for it there.
            if not self._on_message(message, line) and "method" not in message:
                self._handed_off = True
        elif isinstance(message, list):  # a JSON-RPC batch (2025-03-26)
            for item in message:
                if isinstance(item, dict) and not self._on_message(item, None) and "method" not in item:
                    self._handed_off = True
        else:
            self._on_garbage(line.decode("utf-8", "replace"))

    def _too_large(self, head: bytes, tail: bytes, size: int) -> None:
        match = _ID_AT_START.search(head) or _ID_AT_END.search(tail)
        self._on_too_large(json.loads(match.group(1)) if match else None, size)

    def close(self) -> None:
        """Stop reading and close the fd (on the loop; waits for a pumping thread)."""
        if self._fd < 0:
            return
        self._loop.remove_reader(self._fd)
        if self._read_lock.acquire(timeout=1.0):
            try:
                self._poll.unregister(self._fd)
                os.close(self._fd)
                self._fd = -1
            finally:
                self._read_lock.release()
