"""The stdio transport: a child process speaking newline-delimited JSON-RPC on its pipes."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import re
import shlex
import signal
import socket
import sys
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ....errors import MCPError, ProtocolError, ServerExited, StartupError
from ...protocol import jsonline
from ...safety.redact import Mask, redact_args, secret_values
from ..base import DEFAULT_MAX_MESSAGE_SIZE, BlockingTransport, Limit, MessageSink, as_limit
from ..inbox import Inbox
from . import launcher, reaper
from .pipes import PipeReader, PipeWriter

STDERR_LINES = 500
EXIT_GRACE = 5.0  # after stdout closed, for the process's exit (its code and last stderr lines)
DRAIN_GRACE = 0.5  # after it exited, for its pipes to drain (a grandchild may hold them open)
EXEC_FAILED_EXIT = 2.0  # for the launcher to exit after it reported that the exec failed
STDERR_LINE_CHARS = 2000
DIAGNOSTIC_LINES = 100


def _preexec(*calls: tuple[int, int]) -> Callable[[], None] | None:
    """A preexec function making these prctl calls in the child (Linux only), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def preexec() -> None:
        for option, value in calls:
            prctl(option, value)

    return preexec


# Started directly, a server dies with us (PR_SET_PDEATHSIG); through the launcher, the
# launcher gets SIGTERM instead and takes the server's whole tree with it.
_DIRECT = _preexec((launcher.PR_SET_PDEATHSIG, signal.SIGKILL))
_LAUNCHED = _preexec(*launcher.SUBREAPER) if sys.executable else None


@dataclass
class StdioParameters:
    command: str
    args: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict)  # merged over os.environ
    cwd: str | None = None

    def describe(self) -> str:
        return shlex.join([self.command, *redact_args(self.args)])


class _PipeProtocol(asyncio.SubprocessProtocol):
    def __init__(self, owner: StdioTransport) -> None:
        self._owner = owner
        self.exited = asyncio.Event()  # the process ended and asyncio's watcher reaped it

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self._owner._feed_stderr(data)  # stdout is ours (PipeReader), only stderr comes here

    # Nothing to report for a process whose start failed (the launcher could not exec).

    def process_exited(self) -> None:
        self.exited.set()
        if self._owner._proc is not None:
            self._owner._process_exited()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._owner._proc is not None:
            self._owner._finish()


class StdioTransport(BlockingTransport):
    """Runs the server in its own process group (on Linux under the launcher, which takes
    the server's whole process tree down with it) and reads its pipes.

    Any thread may write the server's stdin, and a blocking caller may read its reply from
    stdout itself (see pipes.py): that is the fast path, with no hop to the loop."""

    remote = False
    nonblocking_send = True  # a pipe write never blocks: what does not fit is queued
    pump_needs_watch = False  # pump waits with a deadline of its own

    def __init__(
        self,
        params: StdioParameters,
        *,
        max_message_size: int | Limit = DEFAULT_MAX_MESSAGE_SIZE,
        close_timeout: float = 2.0,
    ) -> None:
        self.params = params
        self.limit = as_limit(max_message_size)
        self.close_timeout = close_timeout
        # Kept masked: a server that echoes its own token to stderr must not put it in an
        # error, a log or a saved notebook.
        self.mask = Mask(secret_values(params.args, params.env))
        self.stderr_lines: deque[str] = deque(maxlen=STDERR_LINES)
        self.diagnostics: deque[str] = deque(maxlen=DIAGNOSTIC_LINES)
        self.pid: int | None = None  # the server's own process
        self.returncode: int | None = None
        self._group: int | None = None  # the process we started: the launcher, or the server
        self._launched = False  # under the launcher, which then holds our end of _lifeline
        self._lifeline: socket.socket | None = None
        self._sink: MessageSink | None = None
        self._inbox = Inbox()
        self._proc: asyncio.SubprocessTransport | None = None
        self._writer: PipeWriter | None = None
        self._reader: PipeReader | None = None
        self._stderr_partial = ""
        self._stderr_decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._exited = asyncio.Event()
        self._finished = False
        self._finish_timer: asyncio.TimerHandle | None = None
        self._closing = False

    @property
    def max_message_size(self) -> int:
        return self.limit()

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self, sink: MessageSink) -> None:
        self._sink = sink
        self._inbox.bind(sink)
        loop = asyncio.get_running_loop()
        # Our own pipes rather than asyncio's: a blocking caller on another thread may
        # write and read them itself (see pipes.py).
        child_stdin, our_stdin = os.pipe()
        our_stdout, child_stdout = os.pipe()
        try:
            proc = await self._spawn(loop, child_stdin, child_stdout)
        except BaseException:
            os.close(our_stdin)
            os.close(our_stdout)
            raise
        finally:
            os.close(child_stdin)
            os.close(child_stdout)
        self._proc = proc
        self._group = proc.get_pid()  # a session of its own: its pid is the group's id
        if self.pid is None:
            self.pid = self._group
        # A write the loop made later that finds stdin closed: the server is ending (as in send_nowait).
        self._writer = PipeWriter(our_stdin, loop, on_broken=lambda: self._finish_within(EXIT_GRACE))
        self._reader = PipeReader(
            our_stdout,
            loop,
            limit=self.limit,
            on_message=self._inbox.deliver,
            on_too_large=sink.on_too_large,
            on_garbage=lambda text: self.diagnostics.append(self.mask(text)[:STDERR_LINE_CHARS]),
            on_bad_reply=self._bad_reply,
            on_eof=self._stdout_eof,
        )
        if os.name == "posix" and not self._launched:
            reaper.watch(self._group)

    async def _spawn(self, loop: asyncio.AbstractEventLoop, stdin: int, stdout: int) -> asyncio.SubprocessTransport:
        p = self.params
        try:
            return await self._start_process(loop, stdin, stdout)
        except FileNotFoundError as e:
            missing = p.cwd if p.cwd and not os.path.isdir(p.cwd) else p.command
            what = "directory" if missing == p.cwd else "command"
            raise StartupError(
                f"cannot start {p.describe()!r}: {what} {missing!r} not found; install it or give its full path"
            ) from e
        except PermissionError as e:
            raise StartupError(f"cannot start {p.describe()!r}: permission denied ({e.strerror})") from e
        except OSError as e:
            raise StartupError(f"cannot start {p.describe()!r}: {e.strerror or e}") from e

    async def _start_process(
        self, loop: asyncio.AbstractEventLoop, stdin: int, stdout: int
    ) -> asyncio.SubprocessTransport:
        """The server's process: on Linux under the launcher (see launcher.py), which tells
        the server's pid, or the error of its exec, on a socket it then holds as a lifeline."""
        p = self.params
        posix = os.name == "posix"
        argv: list[str] = [p.command, *p.args]
        env = {**os.environ, **p.env}
        options: dict[str, Any] = {"preexec_fn": _DIRECT} if posix else {}
        theirs: socket.socket | None = None
        if _LAUNCHED is not None:
            self._launched = True
            self._lifeline, theirs = socket.socketpair()
            argv = launcher.command(theirs.fileno(), self.close_timeout / 2, argv)
            env = launcher.environment(env)
            options = {"preexec_fn": _LAUNCHED, "pass_fds": (theirs.fileno(),)}
        proc: asyncio.SubprocessTransport | None = None
        protocol = _PipeProtocol(self)
        try:
            proc, _ = await loop.subprocess_exec(
                lambda: protocol,
                *argv,
                stdin=stdin,
                stdout=stdout,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=p.cwd,
                start_new_session=posix,  # own group: Ctrl-C in the kernel must not reach it
                **options,
            )
            self._proc = proc  # before we wait for the report: its exit may come first
            if self._lifeline is not None and theirs is not None:
                theirs.close()
                self.pid = launcher.parse_report(await _read_report(loop, self._lifeline))
            return proc
        except BaseException as error:
            self._close_lifeline()
            self._proc = None
            if proc is not None:
                if isinstance(error, OSError):
                    # The launcher could not exec the command and exits by itself. Closing
                    # first would reap it behind asyncio's child watcher, which then logs
                    # "Unknown child process pid N" into the person's cell.
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(protocol.exited.wait(), EXEC_FAILED_EXIT)
                proc.close()
            raise
        finally:
            if theirs is not None:
                theirs.close()

    async def send(self, message: dict[str, Any]) -> bytes | None:
        return self.send_nowait(message)

    def send_nowait(self, message: dict[str, Any], timeout: float | None = None) -> bytes | None:
        """Write a message from any thread, without waiting for the event loop.

        Blocking calls use this to skip a thread hop; what the pipe cannot take at
        once is queued and written by the loop when the server reads again.
        """
        data = jsonline.encode(message) + b"\n"
        writer = self._writer
        if self._finished or writer is None or self._closing:
            raise ServerExited(
                f"server {self.describe()!r} is not running{self._exit_text()}",
                returncode=self.returncode,
                stderr=self.stderr_text(),
            )
        if not writer.write(data):
            # The server closed its stdin: it is ending. Its exit ends this request (and
            # every other) with the reason, its code and last stderr lines, which raising
            # now would not know yet; at the latest EXIT_GRACE from now.
            self._inbox.call(self._finish_within, EXIT_GRACE)
        return data

    def abandon(self, request_id: int | str) -> None:
        pass  # replies share the one pipe: nothing is held for one request

    def on_initialized(self, protocol_version: str) -> None:
        pass  # nothing on a pipe depends on the version

    async def close(self) -> None:
        """Close stdin, wait; then SIGTERM the group, wait; then SIGKILL the group."""
        self._closing = True
        proc = self._proc
        if proc is None:
            return
        if self._writer is not None:
            self._writer.close()
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                self._signal_group(sig)
            try:
                await asyncio.wait_for(self._exited.wait(), self.close_timeout)
                break
            except asyncio.TimeoutError:
                continue
        # The leader is gone; stragglers it left in the group (npx's children) go too.
        self._signal_group(signal.SIGTERM)
        if os.name == "posix" and self._group is not None and not self._launched:
            reaper.unwatch(self._group)
        self._close_lifeline()
        proc.close()
        self._finish()

    def _signal_group(self, sig: int) -> None:
        if self._group is None:
            return
        try:
            if os.name == "posix":
                os.killpg(self._group, sig)
            elif self._proc is not None:
                self._proc.kill()
        except (ProcessLookupError, PermissionError):
            pass

    def _close_lifeline(self) -> None:
        """Tell the launcher we are done: it takes down whatever of the tree is left."""
        lifeline, self._lifeline = self._lifeline, None
        if lifeline is not None:
            lifeline.close()

    # -- reading -----------------------------------------------------------------------

    def _bad_reply(self, request_id: int | str, why: str) -> None:
        assert self._sink is not None
        error = ProtocolError(
            f"server {self.describe()!r} sent a reply that cannot be read: {why}; the line is in its diagnostics"
        )
        self._sink.fail_request(request_id, error)

    def _stdout_eof(self) -> None:
        if not self._inbox.on_loop():
            self._inbox.call(self._stdout_eof)
            return
        # The process is exiting (or closed stdout): its exit (connection_lost, once its
        # pipes are drained too) finishes; on a busy machine that may take a while, and a
        # process that only closed stdout is reported after EXIT_GRACE anyway.
        self._finish_within(EXIT_GRACE)

    def pump(self, done: Callable[[], bool], timeout: float | None, wake_fd: int | None = None) -> bool:
        """Read replies on this thread until ``done()`` (see PipeReader.pump)."""
        reader = self._reader
        return reader is not None and reader.pump(done, timeout, wake_fd)

    def _feed_stderr(self, data: bytes) -> None:
        # Incremental: a character (of a secret, too) split between two reads decodes whole.
        text = self._stderr_partial + self._stderr_decoder.decode(data)
        *lines, self._stderr_partial = text.split("\n")
        mask = self.mask
        for line in lines:
            self.stderr_lines.append(mask(line.rstrip("\r"))[:STDERR_LINE_CHARS])  # masked whole, then cut
        if len(self._stderr_partial) > STDERR_LINE_CHARS:
            # A secret the cut would split is kept back whole, masked with what comes next.
            shown, self._stderr_partial = mask.cut(self._stderr_partial)
            if shown:
                self.stderr_lines.append(shown[:STDERR_LINE_CHARS])

    # -- ending ------------------------------------------------------------------------

    def _process_exited(self) -> None:
        assert self._proc is not None
        self.returncode = self._proc.get_returncode()  # the launcher exits as the server did
        self._exited.set()
        if self._launched:
            # The launcher leaves an empty group, unless it was killed: then nothing else
            # would end the server and what is left in its group.
            self._close_lifeline()
            self._signal_group(signal.SIGKILL)
        # Let the pipes drain (the last stderr lines matter: connection_lost comes when they
        # are), but do not wait for a grandchild that keeps them open.
        self._finish_within(DRAIN_GRACE)

    def _finish_within(self, seconds: float) -> None:
        """Finish at the latest in ``seconds`` (sooner if already due sooner)."""
        if self._finished:
            return
        loop = asyncio.get_running_loop()
        timer = self._finish_timer
        if timer is not None:
            if timer.when() <= loop.time() + seconds:
                return
            timer.cancel()
        self._finish_timer = loop.call_later(seconds, self._finish)

    def _finish(self) -> None:
        if self._finish_timer is not None:  # finished sooner (closed): the timer would hold us
            self._finish_timer.cancel()
            self._finish_timer = None
        if self._finished:
            return
        self._finished = True
        if self._reader is not None:
            self._reader.close()
        if self._stderr_partial:
            self.stderr_lines.append(self.mask(self._stderr_partial)[:STDERR_LINE_CHARS])
            self._stderr_partial = ""
        error: MCPError | None = None
        if not self._closing:
            error = ServerExited(
                f"server {self.describe()!r} exited{self._exit_text()}{self.failure_detail()}",
                returncode=self.returncode,
                stderr=self.stderr_text(),
            )
        if self._sink is not None:
            self._sink.on_closed(error)

    def _exit_text(self) -> str:
        return "" if self.returncode is None else f" with code {self.returncode}"

    # -- reporting ---------------------------------------------------------------------

    def describe(self) -> str:
        return self.params.describe()

    def stderr_text(self) -> str:
        # The line being written (flushed when the server is gone) may end in the start of a secret.
        lines = list(self.stderr_lines)
        if self._stderr_partial:
            lines.append(self.mask.unfinished(self._stderr_partial))
        return "\n".join(lines)

    def failure_detail(self) -> str:
        lines = [*self.stderr_lines, self.mask.unfinished(self._stderr_partial)]
        excerpt = stderr_excerpt(lines)
        return f"; stderr: {' | '.join(excerpt)}" if excerpt else ""


async def _read_report(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> bytes:
    """The launcher's one line (up to EOF if it died first)."""
    sock.setblocking(False)
    data = b""
    while not data.endswith(b"\n"):
        chunk = await loop.sock_recv(sock, 64)
        if not chunk:
            break
        data += chunk
    return data


# Lines of a failed start's stderr that say nothing about why: stack frames, carets and
# brackets, Node's version footer, Python's traceback header.
_NOISE = re.compile(r"\s*(at\s|File \"|Traceback \(most recent call last\)|Node\.js v\d|[\^~{}\[\]()]+,?\s*$)")
_CAUSE = re.compile(
    r"error|exception|fatal|panic|cannot|can't|could not|failed|not found|no such|no module|denied|invalid|"
    r"unknown|missing|refused|unsupported",
    re.IGNORECASE,
)


def stderr_excerpt(lines: Sequence[str], last: int = 2, width: int = 300) -> list[str]:
    """What a failed start's stderr says about why: the first line that names an error (with
    Node's ``Cannot find module`` the last lines are only a stack's tail), then the last few."""
    useful = [line.strip()[:width] for line in lines if line.strip() and not _NOISE.match(line)]
    first = next((i for i, line in enumerate(useful) if _CAUSE.search(line)), None)
    if first is None:
        return useful[-(last + 1) :]
    return [useful[first], *useful[max(first + 1, len(useful) - last) :]]


__all__ = ["StdioParameters", "StdioTransport", "stderr_excerpt"]
