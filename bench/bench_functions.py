"""A tool as a function against the call it makes, measured in the same run.

    python bench/bench_functions.py [-n 4000] [--rounds 20]

``everything.tools.echo("hi")`` against ``everything.call_tool("echo", {"message": "hi"})``
(server-everything over stdio), in interleaved blocks after a warm-up; the median of each,
their difference (target: within 20 µs a call) and ratio. Both sides validate, as by default.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EVERYTHING = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=4000, help="calls per side")
    parser.add_argument("--rounds", type=int, default=20)
    opts = parser.parse_args()

    from mcp_notebook import Client

    client = Client()
    server = client.add("everything", command="node", args=[str(EVERYTHING), "stdio"])
    echo = server.tools.echo

    def direct() -> None:
        server.call_tool("echo", {"message": "hi"})

    def function() -> None:
        server.tools.echo("hi")  # the attribute looked up each time, as in a notebook

    assert echo("hi").text == server.call_tool("echo", {"message": "hi"}).text
    sides = {"call_tool": direct, "tools.echo": function}
    for fn in sides.values():
        for _ in range(1000):  # warm both paths and the server's JIT
            fn()
    block = max(1, opts.n // opts.rounds)
    times: dict[str, list[float]] = {name: [] for name in sides}
    for r in range(opts.rounds):
        order = list(sides.items())
        for name, fn in order[r % 2 :] + order[: r % 2]:  # alternate who goes first
            t = time.perf_counter()
            for _ in range(block):
                fn()
            times[name].append((time.perf_counter() - t) / block)
    base = statistics.median(times["call_tool"]) * 1e6
    ours = statistics.median(times["tools.echo"]) * 1e6
    verdict = "ok" if ours - base <= 20 else "OVER the 20 µs target"
    print(
        f"server.tools.echo('hi') {ours:.1f} µs vs server.call_tool('echo', …) {base:.1f} µs: "
        f"{ours - base:+.1f} µs a call, ratio {ours / base:.3f} ({verdict}; {opts.rounds} rounds of {block})"
    )
    client.close()


if __name__ == "__main__":
    main()
