"""Bulk calls on a Dask cluster (mcp_notebook.dask): a real 2-process LocalCluster against the
demo server over stdio (a server per worker) and over Streamable HTTP (one server, every
worker connected to it); results equal the single-machine ``Server.map``."""

from __future__ import annotations

import os
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
from support.peers import SERVERS
from support.processes import free_port, running

from mcp_notebook import ApprovalPolicy, ArgumentError, Client, ServerConfig, Status, ToolDenied
from mcp_notebook.dask import connections, map_partitions, worker_server

try:
    import dask.dataframe as dd
    import distributed
except ImportError:  # the cluster tier's check fails these tests saying what to install
    dd = distributed = None

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    # Two threads per worker: two partitions at once on one process still share one connection.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None) as lc:
        with distributed.Client(lc) as dask_client:
            yield dask_client


def penguin_queries() -> pd.DataFrame:
    species = ["Adelie", "Gentoo", "Chinstrap"]
    islands = ["Biscoe", "Dream", "Torgersen"]
    rows = [(s, i, 3000 + 150 * k) for k, (s, i) in enumerate((s, i) for s in species for i in islands)]
    rows = rows * 3  # 27 rows
    frame = pd.DataFrame(rows, columns=["species", "island", "min_body_mass_g"])
    frame.index = pd.RangeIndex(500, 500 + len(frame), name="q")
    return frame


def single_machine(config: ServerConfig, frame: pd.DataFrame) -> pd.DataFrame:
    client = Client()
    try:
        return client.add_config(config).map("query_penguins", frame, limit=2)
    finally:
        client.close()


def worker_servers(dask_client: Any, name: str) -> dict[str, tuple[int, int]]:
    """Per worker: connections it opened for ``name``, and demo server processes it runs."""

    def count() -> tuple[int, int]:
        import psutil

        children = psutil.Process(os.getpid()).children(recursive=True)
        demos = sum(c.cmdline()[1:] == ["-m", "mcp_notebook.demo"] for c in children)  # not its launcher
        return connections().get(name, 0), demos

    return dask_client.run(count)  # type: ignore[no-any-return]


def check_same_as_single_machine(out: Any, expected: pd.DataFrame) -> None:
    got = out.compute()
    assert list(got.columns) == list(expected.columns) == ["count", "rows", "is_error", "error", "elapsed_s"]
    pd.testing.assert_frame_equal(got.drop(columns="elapsed_s"), expected.drop(columns="elapsed_s"))


def test_stdio_a_server_per_worker_reused_across_partitions(cluster: Any) -> None:
    config = ServerConfig("demo_stdio", command=sys.executable, args=["-m", "mcp_notebook.demo"])
    frame = penguin_queries()
    ddf = dd.from_pandas(frame, npartitions=4)
    out = map_partitions(ddf, config, "query_penguins", limit=2)  # meta from a one-row sample
    assert out.npartitions == 4 and out.index.name == "q"
    expected = single_machine(config, frame)
    check_same_as_single_machine(out, expected)
    check_same_as_single_machine(out, expected)  # computed again: the same connections
    counts = worker_servers(cluster, "demo_stdio")
    # 4 partitions (computed twice, and a sample) on at most 2 connections: each worker one at most.
    assert all(opened == demos <= 1 for opened, demos in counts.values()), counts
    assert sum(opened for opened, _ in counts.values()) >= 1


def test_streamable_http_every_worker_connects_to_the_same_url(cluster: Any) -> None:
    port = free_port()
    with running([sys.executable, "-m", "mcp_notebook.demo", "--http", str(port)], port):
        config = ServerConfig("demo_http", transport="http", url=f"http://127.0.0.1:{port}/mcp")
        frame = penguin_queries()
        expected = single_machine(config, frame)
        ddf = dd.from_pandas(frame, npartitions=4)  # the constants as a dict: any parameter's name passes
        out = map_partitions(ddf, config, "query_penguins", meta=expected.iloc[:0], constants={"limit": 2})
        check_same_as_single_machine(out, expected)
        counts = worker_servers(cluster, "demo_http")
        assert all(opened <= 1 for opened, _ in counts.values()), counts
        assert sum(opened for opened, _ in counts.values()) >= 1


def test_a_tool_that_asks_is_denied_on_the_workers_unless_the_policy_allows_it(cluster: Any) -> None:
    config = ServerConfig("demo_deny", command=sys.executable, args=["-m", "mcp_notebook.demo"])
    ddf = dd.from_pandas(pd.DataFrame({"species": ["Adelie", "Gentoo"]}), npartitions=2)
    meta = pd.DataFrame({"text": pd.Series(dtype=object), "is_error": pd.Series(dtype=bool),
                         "error": pd.Series(dtype=object), "elapsed_s": pd.Series(dtype=float)})  # fmt: skip
    with pytest.raises(ToolDenied, match="nobody can answer here") as caught:
        map_partitions(ddf, config, "delete_penguins", meta=meta).compute()
    assert "\n" not in str(caught.value)
    allowed = ApprovalPolicy(allow={"demo_deny": ["delete_penguins"]})
    out = map_partitions(ddf, config, "delete_penguins", meta=meta, approval=allowed).compute()
    assert not out["is_error"].any() and out["text"].str.startswith("deleted ").all()


def test_a_servers_limit_holds_in_every_worker_process(cluster: Any) -> None:
    """max_concurrency travels with the config: each worker's server (the official SDK's,
    counting what it has in flight) never has more than 2 calls, though each worker runs two
    partitions at once, each asking for 8; pairs of calls that wait for each other meet."""
    config = ServerConfig(
        "sdk_limited", command=sys.executable, args=[str(SERVERS / "sdk_modern.py")], max_concurrency=2
    )
    ddf = dd.from_pandas(pd.DataFrame({"together": [2] * 16}), npartitions=4)  # 4 rows a partition: pairs
    meta = pd.DataFrame({"met": pd.Series(dtype=bool), "peak": pd.Series(dtype="int64"),
                         "is_error": pd.Series(dtype=bool), "error": pd.Series(dtype=object),
                         "elapsed_s": pd.Series(dtype=float)})  # fmt: skip
    out = map_partitions(ddf, config, "meet", meta=meta, concurrency=8).compute()
    assert not out["is_error"].any(), out["error"].tolist()
    assert out["met"].all() and out["peak"].max() == 2


def test_mistakes_are_one_line_errors_before_anything_runs(cluster: Any) -> None:
    config = ServerConfig("demo_mistakes", command=sys.executable, args=["-m", "mcp_notebook.demo"])
    ddf = dd.from_pandas(pd.DataFrame({"species": ["Emperor", "Adelie"]}), npartitions=1)
    with pytest.raises(ArgumentError, match="config must be a ServerConfig"):
        map_partitions(ddf, "demo", "query_penguins")
    with pytest.raises(ArgumentError, match="concurrency must be a whole number"):
        map_partitions(ddf, config, "query_penguins", concurrency=0)
    # No meta and a first row that fails: the columns are unknown, and the error says what to do.
    with pytest.raises(ArgumentError, match=r"first row's call failed .*pass meta=") as caught:
        map_partitions(ddf, config, "query_penguins")
    assert "\n" not in str(caught.value)


def test_a_slow_connect_holds_up_only_its_own_config() -> None:
    """A worker connects each config under that config's own lock: partitions for another
    config go on while one server is slow to answer (here a real socket that takes the
    connection and never answers). In this process: no cluster needed."""
    policy = ApprovalPolicy()
    fast = ServerConfig("demo_fast", command=sys.executable, args=["-m", "mcp_notebook.demo"])
    failed: list[BaseException] = []
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(60)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        slow = ServerConfig("slow", transport="http", url=url, startup_timeout=600)  # ends when dropped below

        def connect_slow() -> None:
            try:
                worker_server(slow, policy)
            except Exception as e:  # the connection is dropped below
                failed.append(e)

        stuck = threading.Thread(target=connect_slow, daemon=True)
        stuck.start()
        accepted, _ = listener.accept()  # the slow connect is under way: its initialize is not answered
        with accepted:
            connected: list[Any] = []
            other = threading.Thread(target=lambda: connected.append(worker_server(fast, policy)), daemon=True)
            other.start()
            other.join(120)
            assert connected and connected[0].status is Status.CONNECTED
            assert stuck.is_alive()  # the slow one still waits, and held nobody else up
    stuck.join(120)
    assert not stuck.is_alive() and failed, "the slow connect ends once its connection is dropped"
    connected[0].close()
