"""What OpenTelemetry tracing costs a call, and that it costs nothing while nobody traces.

    python bench/bench_tracing.py [-n 4000] [--rounds 5]

``call_tool("echo", …)`` against server-everything over stdio, one at a time, in three
fresh processes a round (their order rotating): ``plain`` (OpenTelemetry never imported),
``imported`` (``opentelemetry.trace`` imported, no tracer provider: a kernel that imported
the MCP SDK) and ``tracing`` (a provider whose spans go nowhere: the work of making them
and of carrying their context in ``_meta``). Printed: each one's median µs a call over the
rounds, and its ratio to ``plain`` measured in the same round. Targets: ``imported``
within 1.02x of ``plain`` (a request pays a lookup); ``tracing`` is reported, not bounded.
Also the request path's own check while off (``tracing.begin``), timed alone.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EVERYTHING = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"

CHILD = """
import sys, time
sys.path.insert(0, {root!r})
mode, n = sys.argv[1], int(sys.argv[2])
if mode != "plain":
    from opentelemetry import trace
if mode == "tracing":
    from opentelemetry.sdk.trace import TracerProvider
    trace.set_tracer_provider(TracerProvider())  # spans made and ended, exported nowhere
from mcp_notebook import Client
client = Client()
server = client.add("everything", "node", [{everything!r}])
for _ in range(200):
    server.call_tool("echo", {{"message": "warm"}})
start = time.perf_counter()
for _ in range(n):
    server.call_tool("echo", {{"message": "hi"}})
print((time.perf_counter() - start) / n)
client.close()
"""
MODES = ("plain", "imported", "tracing")


def per_call(mode: str, n: int) -> float:
    code = CHILD.format(root=str(ROOT), everything=str(EVERYTHING))
    done = subprocess.run([sys.executable, "-c", code, mode, str(n)], capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def begin_alone(n: int = 200_000) -> float:
    """Seconds ``tracing.begin`` takes on a request while nothing traces."""
    from mcp_notebook.core.session import tracing

    params = {"name": "echo", "arguments": {}}
    start = time.perf_counter()
    for i in range(n):
        tracing.begin("tools/call", params, i, "2026-07-28", True)
    return (time.perf_counter() - start) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=4000, help="calls a process")
    parser.add_argument("--rounds", type=int, default=5)
    opts = parser.parse_args()
    times: dict[str, list[float]] = {m: [] for m in MODES}
    ratios: dict[str, list[float]] = {m: [] for m in MODES}
    for r in range(opts.rounds):
        order = MODES[r % 3 :] + MODES[: r % 3]
        got = {mode: per_call(mode, opts.n) for mode in order}
        for mode in MODES:
            times[mode].append(got[mode])
            ratios[mode].append(got[mode] / got["plain"])
    for mode in MODES:
        print(
            f"{mode:9s} {statistics.median(times[mode]) * 1e6:7.1f} µs a call, "
            f"{statistics.median(ratios[mode]):.3f}x plain (rounds: {', '.join(f'{x:.3f}' for x in ratios[mode])})"
        )
    print(f"tracing.begin while off: {begin_alone() * 1e9:.0f} ns a request")


if __name__ == "__main__":
    main()
