"""Sequential and concurrent `echo` calls over Streamable HTTP against server-everything.

Compares, in one process and one run:
  (a) a bare httpx loop (the floor): POST, read the reply (JSON or SSE), nothing else,
  (b) the official SDK's ClientSession over its Streamable HTTP client (if `mcp` is installed),
  (c) mcp-notebook's Python API (blocking calls; and `a`-methods gathered for concurrency).

    python bench/bench_http.py [-n 1000] [--rounds 10] [--server PATH/TO/server-everything/dist/index.js]

The clients run interleaved blocks of calls, in an order rotated each round, so that the
machine's noise falls on all of them alike; it prints the median µs/call and each ratio
to (a). Target: (c) ≤ 1.3x.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from common import ARGS, OurClient, SdkClient, report, rotated

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SERVER = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
NODE = os.environ.get("MCP_NOTEBOOK_NODE", "node")
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def start_server(server: str) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([NODE, server, "streamableHttp"], env={**os.environ, "PORT": str(port)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"server-everything did not listen on {port}")


def _reply(text: str) -> dict[str, Any]:
    """The JSON-RPC reply in a JSON body or in an SSE body (its last data line)."""
    if text.lstrip().startswith("{"):
        return json.loads(text)
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:") and line[5:].strip()]
    return json.loads(data[-1])


def _call(rid: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "echo", "arguments": ARGS}}


class Bare:
    """The floor: httpx with nothing on top (blocking for sequential, async for concurrent)."""

    def __init__(self, url: str) -> None:
        self.url, self.next_id = url, 1
        self.http = httpx.Client(headers=HEADERS, timeout=30)
        params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "0"}}
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
        response = self.http.post(url, json=init)
        self.headers = {**HEADERS, "Mcp-Session-Id": response.headers["mcp-session-id"],
                        "MCP-Protocol-Version": "2025-11-25"}  # fmt: skip
        self.http.headers.update(self.headers)
        self.http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.loop = asyncio.new_event_loop()
        self.ahttp = httpx.AsyncClient(headers=self.headers, timeout=30, limits=httpx.Limits(max_connections=None))

    def sequential(self, n: int) -> float:
        t = time.perf_counter()
        for _ in range(n):
            self.next_id += 1
            _reply(self.http.post(self.url, content=json.dumps(_call(self.next_id))).text)
        return time.perf_counter() - t

    def concurrent(self, n: int) -> float:
        async def one(rid: int) -> None:
            _reply((await self.ahttp.post(self.url, content=json.dumps(_call(rid)))).text)

        async def block() -> None:
            await asyncio.gather(*(one(self.next_id + 1 + i) for i in range(n)))

        t = time.perf_counter()
        self.loop.run_until_complete(block())
        self.next_id += n
        return time.perf_counter() - t

    def close(self) -> None:
        self.loop.run_until_complete(self.ahttp.aclose())
        self.http.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=1000, help="calls per client and mode (default 1000)")
    ap.add_argument("--rounds", type=int, default=10, help="interleaved blocks (default 10)")
    ap.add_argument("--concurrency", type=int, default=50, help="calls in flight at once (default 50)")
    ap.add_argument("--warmup", type=int, default=500, help="calls per client before measuring (default 500)")
    ap.add_argument("--server", default=str(DEFAULT_SERVER))
    opts = ap.parse_args()
    if not Path(opts.server).exists():
        print(f"server-everything not found at {opts.server}: run `npm ci` first", file=sys.stderr)
        return 2
    proc, url = start_server(opts.server)
    try:
        clients: dict[str, Any] = {"bare httpx loop (floor)": Bare(url)}
        try:
            from mcp.client.streamable_http import streamable_http_client

            clients["official SDK ClientSession"] = SdkClient(lambda: streamable_http_client(url))
        except ImportError:
            print("(the official SDK `mcp` is not installed: its row is left out)")
        clients["mcp-notebook Python API"] = OurClient(url=url, transport="http")
        block = max(1, opts.n // opts.rounds)
        times: dict[str, dict[str, list[float]]] = {name: {"seq": [], "conc": []} for name in clients}

        def concurrent(c: Any, n: int) -> float:  # n calls in batches of --concurrency in flight
            return sum(c.concurrent(min(opts.concurrency, n - i)) for i in range(0, n, opts.concurrency))

        for c in clients.values():
            c.sequential(opts.warmup)
            concurrent(c, opts.warmup)
        for r in range(opts.rounds):
            for name, c in rotated(list(clients.items()), r):
                times[name]["seq"].append(c.sequential(block) / block)
            for name, c in rotated(list(clients.items()), r):
                times[name]["conc"].append(concurrent(c, block) / block)
        for c in clients.values():
            c.close()
    finally:
        proc.kill()
        proc.wait()
    title = (
        f"server-everything over Streamable HTTP: {opts.rounds} rounds of {block} echo calls per client "
        f"({opts.concurrency} in flight when concurrent; medians)"
    )
    report(title, times)
    return 0


if __name__ == "__main__":
    sys.exit(main())
