"""Sequential and concurrent `echo` calls over stdio against server-everything.

Compares, in one process and one run:
  (a) a bare JSON-RPC loop over the pipes (the floor),
  (b) the official SDK's ClientSession (if `mcp` is installed),
  (c) mcp-notebook's Python API (blocking calls; and `a`-methods gathered for concurrency).

    python bench/bench_stdio.py [-n 1000] [--rounds 10] [--server PATH/TO/server-everything/dist/index.js]

The clients run interleaved blocks of calls, in an order rotated each round, so that the
machine's noise falls on all of them alike; it prints the median µs/call and each ratio
to (a). Targets: (c) ≤ 1.2x sequential, ≤ 1.5x concurrent.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import ARGS, OurClient, SdkClient, report, rotated

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SERVER = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
NODE = os.environ.get("MCP_NOTEBOOK_NODE", "node")


def _init_messages() -> list[dict]:
    return [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "b", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]


class Bare:
    """The floor: blocking writes and readline on the pipes, in this thread."""

    def __init__(self, server: str) -> None:
        self.proc = subprocess.Popen(
            [NODE, server, "stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        assert self.proc.stdin and self.proc.stdout
        self.w, self.r = self.proc.stdin, self.proc.stdout
        self.next_id = 1
        init, initialized = _init_messages()
        self._send(init)
        self._recv(0)
        self._send(initialized)

    def _send(self, msg: dict) -> None:
        self.w.write(json.dumps(msg).encode() + b"\n")
        self.w.flush()

    def _recv(self, rid: int) -> dict:
        while True:
            msg = json.loads(self.r.readline())
            if msg.get("id") == rid and "method" not in msg:
                return msg

    def _call(self, rid: int) -> dict:
        return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "echo", "arguments": ARGS}}

    def sequential(self, n: int) -> float:
        t = time.perf_counter()
        for _ in range(n):
            self.next_id += 1
            self._send(self._call(self.next_id))
            self._recv(self.next_id)
        return time.perf_counter() - t

    def concurrent(self, n: int) -> float:
        t = time.perf_counter()
        first = self.next_id + 1
        self.w.write(b"".join(json.dumps(self._call(first + i)).encode() + b"\n" for i in range(n)))
        self.w.flush()
        self.next_id += n
        got = 0
        while got < n:
            msg = json.loads(self.r.readline())
            if "method" not in msg and isinstance(msg.get("id"), int) and msg["id"] >= first:
                got += 1
        return time.perf_counter() - t

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=1000, help="calls per client and mode (default 1000)")
    ap.add_argument("--rounds", type=int, default=10, help="interleaved blocks (default 10)")
    ap.add_argument("--warmup", type=int, default=2000, help="calls per client before measuring (default 2000)")
    ap.add_argument("--server", default=str(DEFAULT_SERVER))
    opts = ap.parse_args()
    if not Path(opts.server).exists():
        print(f"server-everything not found at {opts.server}: run `npm ci` first", file=sys.stderr)
        return 2
    clients: dict[str, Any] = {"bare JSON-RPC loop (floor)": Bare(opts.server)}
    try:
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(command=NODE, args=[opts.server, "stdio"])
        devnull = open(os.devnull, "w")
        clients["official SDK ClientSession"] = SdkClient(lambda: stdio_client(params, errlog=devnull))
    except ImportError:
        print("(the official SDK `mcp` is not installed: its row is left out)")
    clients["mcp-notebook Python API"] = OurClient(NODE, [opts.server, "stdio"])
    # Interleaved blocks, medians: the machine's noise hits every client alike.
    block = max(1, opts.n // opts.rounds)
    times: dict[str, dict[str, list[float]]] = {name: {"seq": [], "conc": []} for name in clients}
    for c in clients.values():  # V8 optimises a server's hot path only after many calls
        c.sequential(opts.warmup)
        c.concurrent(opts.warmup)
    for r in range(opts.rounds):
        for name, c in rotated(list(clients.items()), r):
            times[name]["seq"].append(c.sequential(block) / block)
        for name, c in rotated(list(clients.items()), r):
            times[name]["conc"].append(c.concurrent(block) / block)
    for c in clients.values():
        c.close()
    report(f"server-everything over stdio: {opts.rounds} rounds of {block} echo calls per client (medians)", times)
    return 0


if __name__ == "__main__":
    sys.exit(main())
