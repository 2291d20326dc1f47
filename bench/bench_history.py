"""What recording the history costs a call, measured in the same run.

    python bench/bench_history.py [-n 40000] [--rounds 1600] [--map 10000] [--map-rounds 40]

Two clients of server-everything over stdio, one recording (history_size 1000) and one not
(history_size 0), after a warm-up: ``call_tool("echo", …)`` one at a time, and
``server.map("echo", rows, concurrency=32)`` over ``--map`` rows. Each round runs a block
on both sides back to back (who goes first alternates), and the cost is the median of the
rounds' differences a call: a burst of other work on a busy machine falls on both halves of
a round or spoils that round only, where the medians of each side taken apart (as this
bench first did) let a few slow blocks on one side through. Short blocks (25 calls) pair
best: many of them, not a few long ones. Printed: the median difference (target: within
10 µs) with its 95% confidence interval (order statistics: no assumption about the noise's
shape), the rounds' middle half, each side's median, the ratio the difference makes to the
side off; and the recorder's own work a call (sent, received, done on one request), timed
alone. The defaults take about a minute on a 2-core VM.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EVERYTHING = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
TARGET = 10.0  # µs a call


@dataclass
class Paired:
    """Seconds a call: each side's median, and the rounds' differences (recording - off)."""

    recording: float
    off: float
    differences: list[float]

    @property
    def difference(self) -> float:
        return statistics.median(self.differences)

    @property
    def quartiles(self) -> tuple[float, float]:
        q = statistics.quantiles(self.differences, n=4)
        return q[0], q[2]

    @property
    def interval(self) -> tuple[float, float]:
        """The median's 95% confidence interval: the order statistics n/2 ± 1.96·√n/2."""
        ranked = sorted(self.differences)
        n = len(ranked)
        half = 0.98 * n**0.5
        return ranked[max(0, int(n / 2 - half))], ranked[min(n - 1, int(n / 2 + half))]


def paired(recording: Callable[[], None], off: Callable[[], None], rounds: int, per_block: int) -> Paired:
    """``rounds`` rounds, each a block of each side back to back (who goes first alternates)."""
    on_times: list[float] = []
    off_times: list[float] = []
    for r in range(rounds):
        for name, fn in (("on", recording), ("off", off)) if r % 2 == 0 else (("off", off), ("on", recording)):
            t = time.perf_counter()
            fn()
            (on_times if name == "on" else off_times).append((time.perf_counter() - t) / per_block)
    differences = [a - b for a, b in zip(on_times, off_times, strict=True)]
    return Paired(statistics.median(on_times), statistics.median(off_times), differences)


def recorder_alone(n: int = 100_000) -> float:
    """Seconds the recorder takes for one request (its three calls), without any I/O."""
    from mcp_notebook.core.history.calls import History
    from mcp_notebook.core.session.pending import Answer

    recorder = History(1000).recorder("bench")
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {}}}
    reply = {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}
    future = Answer()
    future.set_result(reply["result"])  # done, as a request's is when it is recorded
    t = time.perf_counter()
    for _ in range(n):
        call = recorder.sent(message)
        recorder.received(reply)
        try:
            pass
        finally:
            recorder.done(call, future)
    return (time.perf_counter() - t) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=40_000, help="single calls per side")
    parser.add_argument("--rounds", type=int, default=1600, help="rounds of single calls (-n split among them)")
    parser.add_argument("--map", type=int, default=10_000, help="rows of each map")
    parser.add_argument("--map-rounds", type=int, default=40, help="rounds of maps (one map a side each)")
    opts = parser.parse_args()
    if opts.rounds < 4 or opts.map_rounds < 4:
        parser.error("--rounds and --map-rounds take 4 or more (the middle half needs quartiles)")

    from mcp_notebook import Client, Settings

    on, off = Client(settings=Settings(history_size=1000)), Client(settings=Settings(history_size=0))
    servers = {
        name: client.add("everything", command="node", args=[str(EVERYTHING), "stdio"])
        for name, client in (("recording", on), ("off", off))
    }
    rows = [{"message": f"row {i}"} for i in range(opts.map)]
    for server in servers.values():
        for _ in range(1000):  # warm both paths and the servers' JIT
            server.call_tool("echo", {"message": "hi"})
        server.map("echo", rows, concurrency=32)
    block = max(1, opts.n // opts.rounds)

    def calls(server: object) -> Callable[[], None]:
        def run() -> None:
            for _ in range(block):
                server.call_tool("echo", {"message": "hi"})  # type: ignore[attr-defined]

        return run

    def mapping(server: object) -> Callable[[], None]:
        return lambda: server.map("echo", rows, concurrency=32)  # type: ignore[attr-defined]

    single = paired(calls(servers["recording"]), calls(servers["off"]), opts.rounds, block)
    mapped = paired(mapping(servers["recording"]), mapping(servers["off"]), opts.map_rounds, opts.map)
    assert len(on.calls()) == 1000 and not off.calls()
    alone = recorder_alone() * 1e6
    for what, rounds, result in (
        ("call_tool('echo')", opts.rounds, single),
        (f"map of {opts.map} rows", opts.map_rounds, mapped),
    ):
        ours, base, diff = result.recording * 1e6, result.off * 1e6, result.difference * 1e6
        low, high = (q * 1e6 for q in result.interval)
        q1, q3 = (q * 1e6 for q in result.quartiles)
        verdict = "ok" if diff <= TARGET else f"OVER the {TARGET:g} µs target"
        print(
            f"{what}: {diff:+.1f} µs a call recording, {verdict} (median of {rounds} paired rounds, "
            f"95% CI {low:+.1f} … {high:+.1f}; the rounds' middle half {q1:+.1f} … {q3:+.1f}); "
            f"each side's median: recording {ours:.1f} µs, off {base:.1f} µs; ratio {1 + diff / base:.3f}"
        )
    print(f"the recorder alone: {alone:.2f} µs a request (sent + received + done)")
    on.close()
    off.close()


if __name__ == "__main__":
    main()
