"""A bulk map against the bare JSON-RPC floor sending the same calls, measured in one run.

    python bench/bench_map.py [-n 10000] [--concurrency 32] [--rounds 11] [--http] [--quick]

server-everything's ``echo`` over stdio for ``n`` rows:
  (a) the floor: a bare JSON-RPC loop over the server's pipes (after initialize) keeping
      ``concurrency`` ``tools/call`` requests in flight, writing the next as each reply is read,
  (b) ``server.map("echo", frame, concurrency=32)``: blocking, as a user calls it, with the
      default plain-Python interaction; the frame is a DataFrame with one ``message`` column
      and the map returns the result's DataFrame.
Both run in rounds after a warm-up, a round being one run of each side back to back (who
goes first alternates). The verdict is the median of the rounds' ratios (b)/(a): a VM's speed
drifts over seconds (the floor alone varies by 2x between rounds), and a slow spell then falls
on both halves of a round rather than on whichever side ran in it. The table also gives each
side's median wall, its spread, rows per second and the ratio of the medians. Target: (b) <= 1.3x (a).

Memory: each side runs once more in a fresh interpreter (connected, warmed by a small map
so that pandas is imported): its resident set just before the timed map, its peak during
it (VmHWM, reset just before via /proc/self/clear_refs, so that the peak is the map's own),
and the growth. Target: the map's growth <= 50 MB.

``--http`` adds the same map over Streamable HTTP (server-everything's ``streamableHttp``
mode) against a bare httpx floor with the same calls in flight (no target; the server's
own time dominates, so it takes a while: one round unless ``--http-rounds``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import ROOT, BareHttp, BareStdio, echo_call, free_port, start_listening

DEFAULT_SERVER = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
NODE = os.environ.get("MCP_NOTEBOOK_NODE", "node")
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "0"}}
HANDSHAKE: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


def row_call(rid: int) -> dict[str, Any]:
    """The floor's request: the same message a map's row sends."""
    return echo_call(rid, {"message": f"row {rid % 10000}"})


def frame(n: int) -> Any:
    import pandas as pd

    return pd.DataFrame({"message": [f"row {i}" for i in range(n)]})


class Mapper:
    """mcp-notebook's side: ``server.map`` over a DataFrame, blocking."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        sys.path.insert(0, str(ROOT))
        from mcp_notebook import Client

        self.client = Client()
        self.server = self.client.add("bench", *args, **kwargs)

    def windowed(self, rows: Any, in_flight: int) -> float:
        t = time.perf_counter()
        out = self.server.map("echo", rows, concurrency=in_flight)
        elapsed = time.perf_counter() - t
        assert len(out) == len(rows) and not out["is_error"].any(), out[out["is_error"]].head()
        return elapsed

    def close(self) -> None:
        self.client.close()


def timed(floor: Any, mapper: Mapper, n: int, in_flight: int, rounds: int, warmup: int) -> dict[str, list[float]]:
    """Wall seconds per side for ``n`` calls, ``rounds`` interleaved rounds after a warm-up."""
    rows, small = frame(n), frame(warmup)
    if warmup:  # V8 optimises a server's hot path only after many calls; pandas gets imported
        floor.windowed(warmup, in_flight)
        mapper.windowed(small, in_flight)
    sides = [("floor", lambda: floor.windowed(n, in_flight)), ("map", lambda: mapper.windowed(rows, in_flight))]
    times: dict[str, list[float]] = {"floor": [], "map": []}
    for r in range(rounds):
        for name, run in sides[r % 2 :] + sides[: r % 2]:  # alternate who goes first
            times[name].append(run())
    return times


def vm_kb(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def child(side: str, n: int, in_flight: int, server: str) -> None:
    """One side's memory, in this fresh interpreter: resident set before, peak during."""
    rows = frame(n)  # the caller's table: made before, not the map's
    if side == "floor":
        runner: Any = BareStdio([NODE, server, "stdio"], HANDSHAKE, row_call)
        run = lambda: runner.windowed(n, in_flight)  # noqa: E731
        runner.windowed(100, in_flight)
    else:
        runner = Mapper(NODE, [server, "stdio"])
        run = lambda: runner.windowed(rows, in_flight)  # noqa: E731
        runner.windowed(frame(100), in_flight)
    before = vm_kb("VmRSS")
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")  # resets VmHWM to the current resident set: the peak below is the map's
        reset = True
    except OSError:
        reset = False
    wall = run()
    print(json.dumps({"before_kb": before, "peak_kb": vm_kb("VmHWM"), "reset": reset, "wall": wall}))
    runner.close()


def memory(side: str, n: int, in_flight: int, server: str) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--child", side, "-n", str(n), "--concurrency", str(in_flight)]
    out = subprocess.run([*argv, "--server", server], capture_output=True, text=True, timeout=600, check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def table(title: str, times: dict[str, list[float]], n: int, names: dict[str, str]) -> float:
    """Prints the table; returns the median of the rounds' ratios (map/floor)."""
    floor = statistics.median(times["floor"])
    print(f"{title}\n")
    print("| side | median wall | spread | rows/s | ratio of medians |")
    print("|---|---|---|---|---|")
    for key, name in names.items():
        med = statistics.median(times[key])
        print(
            f"| {name} | {med:.2f} s | {min(times[key]):.2f}-{max(times[key]):.2f} s "
            f"| {n / med:,.0f} | {med / floor:.2f}x |"
        )
    ratios = sorted(m / f for m, f in zip(times["map"], times["floor"], strict=True))
    print(f"\nThe rounds' ratios (map/floor): {', '.join(f'{r:.2f}' for r in ratios)}\n")
    return statistics.median(ratios)


def http(n: int, in_flight: int, rounds: int, server: str) -> None:
    from bench_http import session_headers

    port = free_port()
    proc, url = start_listening([NODE, server, "streamableHttp"], port, env={**os.environ, "PORT": str(port)})
    try:
        floor = BareHttp(url, session_headers(url), row_call)
        mapper = Mapper(url=url, transport="http")
        try:
            times = timed(floor, mapper, n, in_flight, rounds, warmup=500)
        finally:
            floor.close()
            mapper.close()
    finally:
        proc.kill()
        proc.wait()
    names = {"floor": "bare httpx, same calls in flight (floor)", "map": "server.map over Streamable HTTP"}
    table(f"{n:,} rows of echo over Streamable HTTP, concurrency {in_flight}, {rounds} round(s)", times, n, names)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=10_000, help="rows (calls) per side and round (default 10,000)")
    ap.add_argument("--concurrency", type=int, default=32, help="calls in flight (default 32)")
    ap.add_argument("--rounds", type=int, default=11, help="rounds, a run of each side in each (default 11)")
    ap.add_argument("--warmup", type=int, default=2000, help="calls per side before measuring (default 2000)")
    ap.add_argument("--quick", action="store_true", help="2,000 rows, 3 rounds, no memory runs: a smoke test")
    ap.add_argument("--http", action="store_true", help="add the map over Streamable HTTP (no target)")
    ap.add_argument("--http-rounds", type=int, default=1)
    ap.add_argument("--server", default=str(DEFAULT_SERVER))
    ap.add_argument("--child", choices=["floor", "map"], help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if not Path(opts.server).exists():
        print(f"server-everything not found at {opts.server}: run `npm ci` first", file=sys.stderr)
        return 2
    if opts.child:
        child(opts.child, opts.n, opts.concurrency, opts.server)
        return 0
    if opts.quick:
        opts.n, opts.rounds, opts.warmup = 2000, 3, 500
    n, c = opts.n, opts.concurrency
    floor = BareStdio([NODE, opts.server, "stdio"], HANDSHAKE, row_call)
    mapper = Mapper(NODE, [opts.server, "stdio"])
    try:
        times = timed(floor, mapper, n, c, opts.rounds, opts.warmup)
    finally:
        floor.close()
        mapper.close()
    names = {"floor": "bare JSON-RPC loop, same calls in flight (floor)", "map": f"server.map(..., concurrency={c})"}
    title = f"{n:,} rows of server-everything echo over stdio, concurrency {c}, {opts.rounds} rounds"
    ratio = table(title, times, n, names)
    verdict = "ok" if ratio <= 1.3 else "OVER"
    print(f"map wall: {ratio:.2f}x the floor, the median of the rounds' ratios ({verdict}: the 1.3x target)\n")
    if not opts.quick:
        print("Memory, each side in a fresh interpreter (connected and warmed; VmRSS before, VmHWM during):\n")
        print("| side | RSS before | peak during | growth |")
        print("|---|---|---|---|")
        growth = {}
        for side in ("floor", "map"):
            m = memory(side, n, c, opts.server)
            growth[side] = (m["peak_kb"] - m["before_kb"]) / 1024
            note = "" if m["reset"] else " (VmHWM not resettable here: the process's whole peak)"
            print(
                f"| {names[side]} | {m['before_kb'] / 1024:.1f} MB | {m['peak_kb'] / 1024:.1f} MB "
                f"| {growth[side]:+.1f} MB{note} |"
            )
        verdict = "ok" if growth["map"] <= 50 else "OVER"
        print(f"\nmap peak RSS growth: {growth['map']:.1f} MB ({verdict}: the 50 MB target)\n")
    if opts.http:
        http(n, c, opts.http_rounds, opts.server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
