"""The tests' fork server: imports the MCP SDK once, then forks a child per Python server
the tests start (the demo, tests/servers/sdk_*.py), so that each start costs a fork rather
than 1.4 s of imports. The client side is tests/support/forkshim/sitecustomize.py, which
says what is and is not handed over.

    python tests/support/forkserver.py SOCKET   # serves until its stdin closes

A request is one JSON line (argv, cwd, env, the asking process's pid) with that process's
stdin, stdout and stderr passed along; the reply is ``pid N`` at the fork, then ``exit
CODE`` (a returncode: negative for a signal) when the child ends.
"""

from __future__ import annotations

import array
import json
import os
import selectors
import signal
import socket
import sys
from typing import Any

# What the servers import that takes the time (the SDK's models); not the servers
# themselves, whose state and settings must be each start's own.
PRELOAD = (
    "mcp",
    "mcp.server.mcpserver",
    "mcp.server.mcpserver.resolve",
    "mcp.server.elicitation",
    "mcp.shared.exceptions",
    "mcp_types",
    "pydantic",
    "anyio",
    "uvicorn",
    # The mcp-notebook command's own modules (not pandas, which it imports only for a table).
    "mcp_notebook.cli",
    "starlette.applications",
    "sse_starlette",
)


def run_child(request: dict[str, Any], fds: list[int], sockets: list[socket.socket]) -> None:
    """In the forked child: become the asked-for command, on the asker's pipes (the fork
    server's ``sockets`` closed: an asker must see its fork server's end, not a copy's)."""
    for sock in sockets:
        sock.close()
    # As a Python started afresh has them: SIGPIPE ignored (a BrokenPipeError instead),
    # SIGINT a KeyboardInterrupt, the others the system's.
    for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.set_wakeup_fd(-1)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    asker = request["pid"]
    _end_with(asker)
    argv = request["argv"]
    import runpy

    try:
        if argv[0] == "-m":
            sys.argv = [argv[1], *argv[2:]]
            sys.path[0] = os.getcwd()
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            script = os.path.abspath(argv[0])
            sys.argv = [argv[0], *argv[1:]]
            sys.path[0] = os.path.dirname(script)
            runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if e.code is not None and not isinstance(e.code, int):
            print(e.code, file=sys.stderr)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    os._exit(code)


def _end_with(pid: int) -> None:
    """End this child when the process that asked for it ends, however it ended."""
    import threading

    try:
        handle = os.pidfd_open(pid)
    except OSError:
        os._exit(1)  # it is gone already

    def watch() -> None:
        with selectors.DefaultSelector() as sel:
            sel.register(handle, selectors.EVENT_READ)
            sel.select()
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()


def serve(path: str) -> None:
    for name in PRELOAD:
        try:
            __import__(name)
        except ImportError:
            pass
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".new")
    listener.listen(64)
    os.rename(path + ".new", path)  # askers find it only once it can fork
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, "accept")
    sel.register(wake_r, selectors.EVENT_READ, "wake")
    sel.register(sys.stdin, selectors.EVENT_READ, "stdin")
    children: dict[int, socket.socket] = {}
    while True:
        for key, _ in sel.select():
            if key.data == "stdin":
                if not os.read(sys.stdin.fileno(), 4096):
                    os.unlink(path)
                    return
            elif key.data == "wake":
                os.read(wake_r, 4096)
                _reap(children)
            elif key.data == "accept":
                conn, _ = listener.accept()
                try:
                    _fork(conn, listener, children)
                except Exception:  # one bad request (bad JSON, a failed fork): that asker starts as usual
                    conn.close()
        _reap(children)


def _fork(conn: socket.socket, listener: socket.socket, children: dict[int, socket.socket]) -> None:
    data, fds = b"", []
    while not data.endswith(b"\n"):
        msg, ancillary, _, _ = conn.recvmsg(1 << 20, socket.CMSG_SPACE(3 * array.array("i").itemsize))
        if not msg:
            for fd in fds:
                os.close(fd)
            conn.close()
            return
        data += msg
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                got = array.array("i")
                got.frombytes(payload[: len(payload) - len(payload) % got.itemsize])
                fds.extend(got)
    request = json.loads(data)
    pid = os.fork()
    if pid == 0:
        try:
            run_child(request, fds, [listener, conn, *children.values()])
        finally:
            os._exit(1)  # a child never goes back to serving (run_child ends it itself)
    for fd in fds:
        os.close(fd)
    children[pid] = conn
    conn.sendall(f"pid {pid}\n".encode())


def _reap(children: dict[int, socket.socket]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is not None:
            try:
                conn.sendall(f"exit {os.waitstatus_to_exitcode(status)}\n".encode())
            except OSError:
                pass  # the asker is gone: nothing to tell
            conn.close()


if __name__ == "__main__":
    serve(sys.argv[1])
