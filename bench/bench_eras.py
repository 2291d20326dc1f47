"""What choosing the protocol era costs, and calls at 2026-07-28.

1. Connect time against a legacy-only server (server-everything over stdio): ``auto`` (a
   ``server/discover`` probe, answered -32601, then ``initialize``) against a pinned
   ``legacy`` (``initialize`` only), interleaved; and a restart of each: under ``auto`` it
   does not probe again (the era is remembered per server). Target: auto within 50 ms of legacy,
   or paid once per server.
2. Sequential and concurrent ``echo`` calls at 2026-07-28 against an official-SDK server
   (tests/servers/sdk_modern.py) over stdio and Streamable HTTP: mcp-notebook against a bare
   loop speaking the same era (the floor), measured in the same run as bench_stdio.py and
   bench_http.py do; over stdio also mcp-notebook at 2025-11-25 against the same server.
   Targets: stdio ≤ 1.2x sequential, ≤ 1.5x concurrent; HTTP ≤ 1.3x.

    python bench/bench_eras.py [--connects 10] [-n 1000] [--rounds 10] [--skip-http]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

from common import ROOT, BareHttp, BareStdio, OurClient, echo_call, free_port, measure, report, rotated, start_listening

sys.path.insert(0, str(ROOT))
from mcp_notebook import Client

EVERYTHING = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
NODE = os.environ.get("MCP_NOTEBOOK_NODE", "node")
SDK_SERVER = [sys.executable, str(ROOT / "tests/servers/sdk_modern.py")]
VERSION = "2026-07-28"
ARGS = {"text": "hi"}
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "b", "version": "0"},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "MCP-Protocol-Version": VERSION, "Mcp-Method": "tools/call", "Mcp-Name": "echo"}  # fmt: skip
DISCOVER = {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": META}}


def _call(rid: int) -> dict[str, Any]:
    return echo_call(rid, ARGS, META)


# -- 1. connect time -------------------------------------------------------------------------


def connects(rounds: int) -> None:
    client = Client()
    args = [str(EVERYTHING), "stdio"]
    times: dict[str, list[float]] = {"auto": [], "legacy": [], "auto, reconnect": [], "legacy, reconnect": []}
    notes: dict[str, str | None] = {}
    try:
        for r in range(rounds):
            for mode in rotated(["auto", "legacy"], r):
                t = time.perf_counter()
                server = client.add(f"e-{mode}", NODE, args, protocol=mode)
                times[mode].append(time.perf_counter() - t)
                notes[mode] = server.era_note
                # A restart (the old process closed, a new one started): under auto, seen
                # legacy now, it starts with initialize as the pin does.
                t = time.perf_counter()
                server.restart()
                times[f"{mode}, reconnect"].append(time.perf_counter() - t)
                notes[f"{mode}, reconnect"] = server.era_note
                client.remove(server.name)
    finally:
        client.close()
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"connect to server-everything over stdio: {rounds} rounds, interleaved (medians)\n")
    print("| connect | ms | auto over legacy | how the era was chosen |")
    print("|---|---|---|---|")
    for k, m in med.items():
        base = med[k.replace("auto", "legacy")]
        over = f"{(m - base) * 1e3:+.0f} ms ({m / base:.2f}x)" if k.startswith("auto") else ""
        print(f"| {k} | {m * 1e3:.0f} | {over} | {notes[k]} |")
    print()


# -- 2. calls at 2026-07-28 ------------------------------------------------------------------


def ours(*args: Any, protocol: str = VERSION, **kwargs: Any) -> OurClient:
    """mcp-notebook at ``protocol`` (2026-07-28 unless told) against the SDK server."""
    client = OurClient(*args, arguments=ARGS, protocol=protocol, **kwargs)
    assert client.server.protocol_version == (VERSION if protocol == VERSION else "2025-11-25")
    return client


def run(title: str, clients: dict[str, Any], opts: argparse.Namespace, in_flight: int | None = None) -> None:
    """Time the clients (closed after) and print their table."""
    n, rounds, warmup = opts.n, opts.rounds, opts.warmup
    block, times = measure(clients, n, rounds, warmup, in_flight)
    report(f"{title}: {rounds} rounds of {block} echo calls per client (medians)", times)
    print()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--connects", type=int, default=10, help="connect rounds (default 10)")
    ap.add_argument("-n", type=int, default=1000, help="calls per client and mode (default 1000)")
    ap.add_argument("--rounds", type=int, default=10, help="interleaved blocks (default 10)")
    ap.add_argument("--warmup", type=int, default=500, help="calls per client before measuring (default 500)")
    ap.add_argument("--concurrency", type=int, default=50, help="HTTP calls in flight at once (default 50)")
    ap.add_argument("--skip-http", action="store_true")
    opts = ap.parse_args()
    if not EVERYTHING.exists():
        print(f"server-everything not found at {EVERYTHING}: run `npm ci` first", file=sys.stderr)
        return 2
    connects(opts.connects)
    stdio = {
        "bare JSON-RPC loop (floor)": BareStdio(SDK_SERVER, [DISCOVER], _call),
        "mcp-notebook Python API": ours(SDK_SERVER[0], SDK_SERVER[1:]),
        # The same server at 2025-11-25: what the era itself costs, apart from the server.
        "mcp-notebook at 2025-11-25": ours(SDK_SERVER[0], SDK_SERVER[1:], protocol="legacy"),
    }
    run(f"SDK server over stdio at {VERSION}", stdio, opts)
    if not opts.skip_http:
        port = free_port()
        proc, url = start_listening([*SDK_SERVER, "--http", str(port)], port)
        try:
            http = {
                "bare httpx loop (floor)": BareHttp(url, HEADERS, _call),
                "mcp-notebook Python API": ours(url=url, transport="http"),
            }
            run(f"SDK server over Streamable HTTP at {VERSION}", http, opts, opts.concurrency)
        finally:
            proc.kill()
            proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
