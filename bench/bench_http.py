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
import os
import sys
from pathlib import Path
from typing import Any

import httpx
from common import ROOT, BareHttp, OurClient, SdkClient, echo_call, free_port, measure, report, start_listening

DEFAULT_SERVER = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
NODE = os.environ.get("MCP_NOTEBOOK_NODE", "node")
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def session_headers(url: str) -> dict[str, str]:
    """Initialize a session (untimed): the headers every later request carries."""
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "0"}}
    with httpx.Client(headers=HEADERS, timeout=30) as http:
        response = http.post(url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        headers = {
            **HEADERS,
            "Mcp-Session-Id": response.headers["mcp-session-id"],
            "MCP-Protocol-Version": "2025-11-25",
        }
        http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    return headers


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
    port = free_port()
    proc, url = start_listening([NODE, opts.server, "streamableHttp"], port, env={**os.environ, "PORT": str(port)})
    try:
        clients: dict[str, Any] = {"bare httpx loop (floor)": BareHttp(url, session_headers(url), echo_call)}
        try:
            from mcp.client.streamable_http import streamable_http_client

            clients["official SDK ClientSession"] = SdkClient(lambda: streamable_http_client(url))
        except ImportError:
            print("(the official SDK `mcp` is not installed: its row is left out)")
        clients["mcp-notebook Python API"] = OurClient(url=url, transport="http")
        block, times = measure(clients, opts.n, opts.rounds, opts.warmup, opts.concurrency)
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
