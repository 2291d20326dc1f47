"""Starts a stdio server so that no process it starts outlives it (Linux).

The kernel runs ``main([FD, GRACE, COMMAND, ARG...])`` in a new interpreter (``command()``)
in place of the server, after the prctl calls in ``SUBREAPER``: they make the launcher a
child subreaper (an orphan among the server's descendants, even one that called ``setsid()``
or double-forked, becomes the launcher's child rather than init's) whose parent-death signal
is SIGTERM. The launcher forks and execs the server on the same stdin, stdout and stderr and
reports, on the socket FD, the server's pid or the errno of a failed exec. Then it waits.
When the server exits, when FD reaches EOF (the kernel closed it, or died however it died),
or on SIGTERM, SIGHUP or SIGINT, it sends SIGTERM to every descendant and SIGKILL to those
left after GRACE seconds, until none is left; then it exits as the server did.

It runs without site packages and imports only what it needs: it adds one interpreter start
(without site) to a server's start. Elsewhere servers start directly (see reaper.py).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: importing typing would double the launcher's start
if TYPE_CHECKING:
    import signal
    from collections.abc import Sequence
else:
    try:  # the C module behind signal: without signal's enums it imports in no time
        import _signal as signal
    except ImportError:
        import signal

__all__ = ["SUBREAPER", "command", "environment", "parse_report"]

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
# What the kernel's preexec function sets (as prctl arguments): both survive exec.
SUBREAPER = ((PR_SET_CHILD_SUBREAPER, 1), (PR_SET_PDEATHSIG, int(signal.SIGTERM)))
GIVE_UP = 5.0  # seconds after SIGKILL: a process stuck in the kernel must not keep us forever
EINVAL = 22
LC_CTYPE_WAS = "MCP_NOTEBOOK_LC_CTYPE"  # "=VALUE", or empty when it was not set


# -- the kernel's side -------------------------------------------------------------------


def command(fd: int, grace: float, argv: Sequence[str]) -> list[str]:
    """The command line that runs ``argv`` under the launcher, reporting on ``fd``."""
    # -I: nothing from the environment or the current folder (whose files could shadow
    # the standard library); -S: no site packages. Imported rather than run as a script,
    # so that its compiled bytecode is reused; the folder goes last, after the stdlib.
    folder = os.path.dirname(os.path.abspath(__file__))
    boot = f"import sys; sys.path.append({folder!r}); import launcher; launcher.main(sys.argv[1:])"
    return [sys.executable, "-I", "-S", "-c", boot, str(fd), repr(grace), *argv]


def environment(env: dict[str, str]) -> dict[str, str]:
    """The launcher's environment for a server's: Python sets LC_CTYPE in its own when the
    locale is C (PEP 538, even with -I), so the launcher is told what the server should get."""
    return {**env, LC_CTYPE_WAS: "=" + env["LC_CTYPE"] if "LC_CTYPE" in env else ""}


def parse_report(data: bytes) -> int:
    """The server's pid from the launcher's report; OSError if the exec failed."""
    text = data.decode("ascii", "replace").strip()
    if text[:1] == "E" and text[1:].isdigit() and int(text[1:]):
        code = int(text[1:])
        raise OSError(code, os.strerror(code))
    if not text.isdigit():
        raise OSError("the launcher exited before starting the server")
    return int(text)


# -- the launcher ----------------------------------------------------------------------


class Launcher:
    """The launcher process: the server it started, and why it should stop."""

    def __init__(self, lifeline: int, grace: float) -> None:
        self.lifeline = lifeline
        self.grace = grace
        self.me = os.getpid()
        self.server = 0
        self.status: int | None = None
        self.stop = False
        # Signals only set a flag; the wake-up pipe ends the wait in poll().
        self.wake, wake_w = os.pipe()
        os.set_blocking(self.wake, False)
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, self._on_stop)
        signal.signal(signal.SIGCHLD, self._on_child)  # the default ignores it: no wake-up

    def _on_stop(self, signum: int, frame: object) -> None:
        self.stop = True

    def _on_child(self, signum: int, frame: object) -> None:
        pass

    def start(self, argv: list[str]) -> None:
        """Fork and exec the server; OSError (with the exec's errno) if it cannot start."""
        err_r, err_w = os.pipe()  # close-on-exec: EOF without data means the exec worked
        pid = os.fork()
        if pid == 0:
            try:
                signal.set_wakeup_fd(-1)
                # Python ignores SIGPIPE and SIGXFSZ; an ignored signal stays ignored
                # across exec, and the server should get the defaults.
                for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGCHLD,
                            signal.SIGPIPE, signal.SIGXFSZ):  # fmt: skip
                    signal.signal(sig, signal.SIG_DFL)
                os.execvp(argv[0], argv)
            except BaseException as e:
                os.write(err_w, str(getattr(e, "errno", None) or EINVAL).encode())
            finally:
                os._exit(127)
        self.server = pid
        os.close(err_w)
        data = b""
        while chunk := os.read(err_r, 32):
            data += chunk
        os.close(err_r)
        if data:
            os.waitpid(pid, 0)
            code = int(data)
            raise OSError(code, os.strerror(code))

    def report(self, text: str) -> None:
        try:
            os.write(self.lifeline, text.encode() + b"\n")
        except OSError:
            self.stop = True  # the kernel is already gone

    def reap(self) -> None:
        """Collect every child that exited (orphans we adopted too), keeping the server's status."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.server:
                self.status = status

    def wait(self) -> None:
        """Until the server exits, the kernel goes away, or we are told to stop."""
        import select

        poll = select.poll()  # not select(): the lifeline keeps the kernel's fd number, maybe over 1023
        poll.register(self.lifeline, select.POLLIN)
        poll.register(self.wake, select.POLLIN)
        while True:
            self.reap()
            if self.status is not None or self.stop:
                return
            ready = {fd for fd, _ in poll.poll()}
            if self.wake in ready:
                while _drain(self.wake):
                    pass
            if self.lifeline in ready:
                try:
                    data = os.read(self.lifeline, 64)
                except OSError:
                    data = b""
                if not data:
                    return

    def teardown(self) -> None:
        """SIGTERM to every descendant, SIGKILL to those left after the grace period."""
        import time

        deadline = time.monotonic() + self.grace
        termed: set[int] = set()
        while True:
            self.reap()
            tree = descendants(self.me)
            now = time.monotonic()
            if not tree or now > deadline + GIVE_UP:
                return
            for pid, parent in tree.items():
                if now >= deadline:
                    send(pid, parent, signal.SIGKILL, self.me)
                elif pid not in termed:
                    termed.add(pid)
                    send(pid, parent, signal.SIGTERM, self.me)
            time.sleep(0.01)

    def exit(self) -> None:
        """Exit as the server did: with its code, or killed by its signal."""
        if self.status is None:
            os._exit(1)
        code = os.waitstatus_to_exitcode(self.status)
        if code >= 0:
            os._exit(code)
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # its crash is not ours to dump
        try:
            signal.signal(-code, signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP have no handler to reset
        os.kill(self.me, -code)
        os._exit(128 - code)  # a signal whose default is to ignore it


def _drain(fd: int) -> bool:
    try:
        return bool(os.read(fd, 512))
    except BlockingIOError:
        return False


def descendants(root: int) -> dict[int, int]:
    """Every live (not zombie) process below ``root``, with its parent's pid, from /proc."""
    parents: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:  # no /proc: the kernel kills what is left in the group
        return {}
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != b"Z":
            parents[int(entry)] = int(fields[1])
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found: dict[int, int] = {}
    todo = [root]
    while todo:
        for pid in children.get(todo.pop(), ()):
            found[pid] = parents[pid]
            todo.append(pid)
    return found


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def send(pid: int, parent: int, sig: int, me: int) -> None:
    # Our own child's pid cannot be reused before we reap it. A deeper one's can once it
    # is gone: signal it only if it still has the parent we saw.
    if parent != me and _parent(pid) != parent:
        return
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def main(args: list[str]) -> None:
    lifeline, grace, argv = int(args[0]), float(args[1]), args[2:]
    os.set_inheritable(lifeline, False)  # the server must not hold the kernel's lifeline
    was = os.environ.pop(LC_CTYPE_WAS, None)
    if was is not None:
        if was:
            os.environ["LC_CTYPE"] = was[1:]
        else:
            os.environ.pop("LC_CTYPE", None)
    launcher = Launcher(lifeline, grace)
    try:
        launcher.start(argv)
    except OSError as e:
        launcher.report(f"E{e.errno or EINVAL}")
        os._exit(127)
    launcher.report(str(launcher.server))
    launcher.wait()
    launcher.teardown()
    launcher.exit()


if __name__ == "__main__":
    main(sys.argv[1:])
