"""A map on a Dask cluster beside the same map on one machine, measured in the same run.

    python bench/bench_dask.py [--partitions 4] [--rows 2500] [--workers 2] [--concurrency 32] [--rounds 3]

server-everything's ``echo`` (stdio) for partitions times rows rows: ``server.map`` in this
process, and ``mcp_notebook.dask.map_partitions`` on a ``distributed.LocalCluster`` of
worker processes (one thread each, so one partition at a time per worker), each worker with
its own server. The cluster's connections are made by a warm-up compute first, so both
sides are timed warm; the median of the rounds, rows per second, and the ratio. No target:
it shows that the cluster works and how it scales (on a 2-core machine the servers, the
workers and the scheduler share the cores).
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
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--rows", type=int, default=2500, help="rows per partition")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=32, help="per partition on the cluster, and on one machine")
    parser.add_argument("--rounds", type=int, default=3)
    opts = parser.parse_args()

    import dask.dataframe as dd
    import distributed
    import pandas as pd

    from mcp_notebook import Client, ServerConfig
    from mcp_notebook.dask import map_partitions

    n = opts.partitions * opts.rows
    frame = pd.DataFrame({"message": [f"row {i}" for i in range(n)]})
    config = ServerConfig("everything", command="node", args=[str(EVERYTHING), "stdio"])
    client = Client()
    server = client.add_config(config)
    meta = server.map("echo", frame.head(1)).iloc[:0]
    with (
        distributed.LocalCluster(
            n_workers=opts.workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        ddf = dd.from_pandas(frame, npartitions=opts.partitions)
        mapped = map_partitions(ddf, config, "echo", meta=meta, concurrency=opts.concurrency)
        mapped.compute()  # warm: every worker connects once
        server.map("echo", frame.head(1000), concurrency=opts.concurrency)
        times: dict[str, list[float]] = {"one machine": [], "cluster": []}
        for r in range(opts.rounds):
            sides = [("one machine", lambda: server.map("echo", frame, concurrency=opts.concurrency)),
                     ("cluster", mapped.compute)]  # fmt: skip
            for name, run in sides[r % 2 :] + sides[: r % 2]:  # alternate who goes first
                t = time.perf_counter()
                out = run()
                times[name].append(time.perf_counter() - t)
                assert len(out) == n and not out["is_error"].any(), name
    client.close()
    single, spread = (statistics.median(times[k]) for k in ("one machine", "cluster"))
    print(f"{n:,} rows of echo, concurrency {opts.concurrency}, median of {opts.rounds} rounds:")
    print(f"  one machine (server.map):           {single:7.2f} s  {n / single:9,.0f} rows/s")
    print(
        f"  {opts.workers}-worker LocalCluster, {opts.partitions} partitions: {spread:7.2f} s  "
        f"{n / spread:9,.0f} rows/s  ({spread / single:.2f}x the one-machine time)"
    )


if __name__ == "__main__":
    main()
