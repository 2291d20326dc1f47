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
import os
import sys
from pathlib import Path
from typing import Any

from common import ROOT, BareStdio, OurClient, SdkClient, echo_call, measure, report

DEFAULT_SERVER = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
NODE = os.environ.get("MCP_NOTEBOOK_NODE", "node")
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "0"}}
HANDSHAKE: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


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
    clients: dict[str, Any] = {
        "bare JSON-RPC loop (floor)": BareStdio([NODE, opts.server, "stdio"], HANDSHAKE, echo_call)
    }
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
    block, times = measure(clients, opts.n, opts.rounds, opts.warmup)
    report(f"server-everything over stdio: {opts.rounds} rounds of {block} echo calls per client (medians)", times)
    return 0


if __name__ == "__main__":
    sys.exit(main())
