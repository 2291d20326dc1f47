"""What recording the history costs a call, measured in the same run.

    python bench/bench_history.py [-n 4000] [--rounds 20] [--map 10000]

Two clients of server-everything over stdio, one recording (history_size 1000) and one not
(history_size 0), called in interleaved blocks after a warm-up: ``call_tool("echo", …)``
one at a time, and ``server.map("echo", rows, concurrency=32)`` over ``--map`` rows. The
median of each side, their difference a call (target: within 10 µs) and ratio; and the
recorder's own work a call (sent, received, done on one request), timed alone.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EVERYTHING = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def interleaved(sides: dict[str, Callable[[], None]], rounds: int, per_block: int) -> dict[str, float]:
    """Median seconds per call of each side, over ``rounds`` blocks taken in turn."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    for r in range(rounds):
        order = list(sides.items())
        for name, fn in order[r % 2 :] + order[: r % 2]:  # alternate who goes first
            t = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - t) / per_block)
    return {name: statistics.median(ts) for name, ts in times.items()}


def recorder_alone(n: int = 100_000) -> float:
    """Seconds the recorder takes for one request (its three calls), without any I/O."""
    from mcp_notebook.core.history import History
    from mcp_notebook.core.pending import Answer

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
    parser.add_argument("-n", type=int, default=4000, help="single calls per side")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--map", type=int, default=10_000, help="rows of each map")
    opts = parser.parse_args()

    from mcp_notebook import Client, Settings

    on, off = Client(settings=Settings(history_size=1000)), Client(settings=Settings(history_size=0))
    servers = {
        name: client.add("everything", command="node", args=[str(EVERYTHING), "stdio"])
        for name, client in (("recording", on), ("off", off))
    }
    for server in servers.values():
        for _ in range(1000):  # warm both paths and the servers' JIT
            server.call_tool("echo", {"message": "hi"})
    block = max(1, opts.n // opts.rounds)

    def calls(server: object) -> Callable[[], None]:
        def run() -> None:
            for _ in range(block):
                server.call_tool("echo", {"message": "hi"})  # type: ignore[attr-defined]

        return run

    single = interleaved({name: calls(s) for name, s in servers.items()}, opts.rounds, block)
    rows = [{"message": f"row {i}"} for i in range(opts.map)]

    def mapping(server: object) -> Callable[[], None]:
        return lambda: server.map("echo", rows, concurrency=32)  # type: ignore[attr-defined]

    mapped = interleaved({name: mapping(s) for name, s in servers.items()}, 5, opts.map)
    assert len(on.calls()) == 1000 and not off.calls()
    alone = recorder_alone() * 1e6
    for what, medians in (("call_tool('echo')", single), (f"map of {opts.map} rows", mapped)):
        ours, base = medians["recording"] * 1e6, medians["off"] * 1e6
        verdict = "ok" if ours - base <= 10 else "OVER the 10 µs target"
        print(
            f"{what}: recording {ours:.1f} µs vs off {base:.1f} µs a call: {ours - base:+.1f} µs, "
            f"ratio {ours / base:.3f} ({verdict})"
        )
    print(f"the recorder alone: {alone:.2f} µs a request (sent + received + done)")
    on.close()
    off.close()


if __name__ == "__main__":
    main()
