"""The tests' fork server, client side (this folder is on the tests' PYTHONPATH).

Python servers the tests start again and again (the demo, tests/servers/sdk_*.py) spend
about 1.4 s of CPU importing the MCP SDK, a third of the suite's server time on 2 cores;
the mcp-notebook command, which the command line's tests run about 60 times, its own imports.
When this interpreter was started as one of them, by the Python the fork server runs
(tests/support/forkserver.py), it asks that server, which imported the SDK once, to fork a
child that runs the same command on this process's stdin, stdout and stderr, in its folder
and environment. This process stays the server's pid for the client: it forwards SIGTERM,
SIGINT and SIGHUP to the child and exits as the child did; the child ends if this process
dies (even by SIGKILL, though just after: so servers on a port start as usual). Anything
else, or no fork server, starts as usual.
"""

from __future__ import annotations

import os
import sys


def _wanted(argv: list[str]) -> bool:
    if "--http" in argv or "--sse" in argv:
        # An HTTP server: tests kill it (SIGKILL) and start another on its port at once,
        # which must not find the old one still there (a child here dies just after).
        return False
    if len(argv) >= 3 and argv[1] == "-m" and argv[2] in ("mcp_notebook.demo", "mcp_notebook"):
        return True  # the demo, and the mcp-notebook command (tests/test_cli*.py run it ~60 times)
    if len(argv) >= 2 and not argv[1].startswith("-"):
        folder, name = os.path.split(argv[1])
        return os.path.basename(folder) == "servers" and name.startswith("sdk_") and name.endswith(".py")
    return False


def _handoff(path: str) -> None:
    import array
    import json
    import signal
    import socket

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        return  # not up (yet): start as usual
    request = {"argv": sys.orig_argv[1:], "cwd": os.getcwd(), "env": dict(os.environ), "pid": os.getpid()}
    data = json.dumps(request).encode() + b"\n"
    sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0, 1, 2]))])
    child: list[int] = []
    pending: list[int] = []

    def forward(signum: int, frame: object) -> None:
        if not child:
            pending.append(signum)
            return
        try:
            os.kill(child[0], signum)
        except ProcessLookupError:
            pass  # it has just ended: its exit is on its way

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    # The pipes are the child's now: holding them open here would keep the client from
    # ever seeing the server's end of output.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    reply = b""
    while True:
        try:
            chunk = sock.recv(4096)
        except InterruptedError:
            continue
        if not chunk:
            break
        reply += chunk
        lines = reply.split(b"\n")
        for line in lines[:-1]:
            word, _, value = line.decode().partition(" ")
            if word == "pid":
                child.append(int(value))
                for signum in pending:
                    os.kill(child[0], signum)
            elif word == "exit":
                code = int(value)
                if code < 0:  # killed by a signal: so is this process, for the same returncode
                    if -code != signal.SIGKILL:
                        signal.signal(-code, signal.SIG_DFL)
                    os.kill(os.getpid(), -code)
                os._exit(code)
        reply = lines[-1]
    if child:
        try:
            os.kill(child[0], signal.SIGKILL)
        except ProcessLookupError:
            pass
    os._exit(1)  # the fork server went away


def _start() -> None:
    path = os.environ.get("MCP_NOTEBOOK_TEST_FORKSERVER")
    if not path or sys.executable != os.environ.get("MCP_NOTEBOOK_TEST_FORKSERVER_PYTHON"):
        return
    if os.environ.get("PYTHONPATH") != os.environ.get("MCP_NOTEBOOK_TEST_FORKSERVER_PYTHONPATH"):
        return  # a path of its own: the fork server's imports were made with another
    if _wanted(list(getattr(sys, "orig_argv", []))):
        _handoff(path)


_start()
