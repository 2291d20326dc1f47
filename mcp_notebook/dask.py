"""Bulk calls on a Dask cluster: ``Server.map`` over each partition of a Dask DataFrame.

    >>> from mcp_notebook import ServerConfig
    >>> from mcp_notebook.dask import map_partitions
    >>> demo = ServerConfig("demo", command="python", args=["-m", "mcp_notebook.demo"])
    >>> out = map_partitions(ddf, demo, "query_penguins", limit=3)  # a Dask DataFrame; .compute() runs it

Each worker process connects once per (config, approval policy) and keeps the connection
for every partition it is given (a stdio config starts one server per worker; a remote one
connects each worker to the same URL, with this machine's token store rules). Nobody can
answer an approval on a worker: the approval policy is applied headless there, so a tool
it would ask about is denied (``ToolDenied``) unless the policy allows it.

Needs the ``dask`` extra (``pip install 'mcp-notebook[dask]'``); ``import mcp_notebook`` never
imports Dask.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections import Counter
from collections.abc import Mapping
from typing import Any

from .core.approval import ApprovalPolicy
from .core.backoff import Backoff
from .core.config.servers import ServerConfig
from .core.types import Status
from .errors import ArgumentError
from .runtime.asking.interaction import Interaction
from .runtime.bulk.rows import every_row
from .runtime.bulk.run import OnError, check_options
from .runtime.client import Client
from .runtime.handle import Server

__all__ = ["WorkerInteraction", "connections", "map_partitions", "run_partition", "worker_server"]

_lock = threading.Lock()  # guards the tables below (a worker runs partitions on several threads)
_servers: dict[str, Server] = {}
_connecting: dict[str, threading.Lock] = {}  # per key: a slow connect holds up only its own config
_opened: Counter[str] = Counter()


def map_partitions(
    ddf: Any,
    config: ServerConfig,
    tool: str,
    /,
    *,
    meta: Any = None,
    approval: ApprovalPolicy | None = None,
    concurrency: int = 8,
    timeout: float | None = None,
    retries: int = 0,
    on_error: OnError = "record",
    columns: Mapping[str, str] | None = None,
    retry_unsafe: bool = False,
    explode: str | None = None,
    constants: Mapping[str, Any] | None = None,
    backoff: Backoff | None = None,
    **arguments: Any,
) -> Any:
    """``Server.map(tool, partition, ...)`` for every partition of ``ddf``, on the workers:
    a Dask DataFrame with the index of ``ddf`` and the columns of a map's frame (nothing runs
    until it is computed). The options are ``Server.map``'s (``constants={...}`` and the other
    keywords go with every row); ``concurrency`` is per partition.

    ``config`` (picklable) says how each worker connects; ``approval`` is the policy applied
    on the workers (default: ``ApprovalPolicy()``), headless: a tool it asks about is denied.
    ``meta``: the result's empty frame (``dask.dataframe.map_partitions``'s meta). Without it,
    the first row is mapped on the cluster once to learn the columns and dtypes (that row's
    call runs twice then: pass ``meta`` for a tool with side effects); columns a partition
    has beyond the meta's are left out."""
    from dask.delayed import delayed  # only here: `import mcp_notebook` never imports Dask

    if not isinstance(config, ServerConfig):
        raise ArgumentError(f"map_partitions: config must be a ServerConfig, not {type(config).__name__}")
    check_options(concurrency, retries, on_error, explode)
    options: dict[str, Any] = dict(
        concurrency=concurrency,
        timeout=timeout,
        retries=retries,
        on_error=on_error,
        columns=dict(columns) if columns else None,
        retry_unsafe=retry_unsafe,
        explode=explode,
        constants=every_row(tool, constants, arguments),  # one dict: any parameter name passes
        backoff=backoff,
    )
    policy = approval if approval is not None else ApprovalPolicy()
    if meta is None:
        sample = ddf.head(1, npartitions=-1, compute=False).to_delayed()[0]
        first = delayed(run_partition)(sample, config, policy, tool, options).compute()
        if len(first) and first["is_error"].iloc[0]:
            raise ArgumentError(
                f"map_partitions over {tool!r}: the first row's call failed ({first['error'].iloc[0]}), "
                "so the result's columns are unknown; fix it or pass meta="
            )
        meta = first.iloc[:0]
    return ddf.map_partitions(run_partition, config, policy, tool, options, meta, meta=meta)


def run_partition(
    frame: Any, config: ServerConfig, approval: ApprovalPolicy, tool: str, options: dict[str, Any], meta: Any = None
) -> Any:
    """One partition's map, on this process's connection (``worker_server``); with ``meta``,
    the frame has exactly its columns (a partition whose rows all failed has no result
    columns of its own) and, where they fit, its dtypes."""
    out = worker_server(config, approval).map(tool, frame, **options)
    if meta is None:
        return out
    out = out.reindex(columns=meta.columns)
    for name, dtype in meta.dtypes.items():
        if out[name].dtype != dtype:
            try:
                out[name] = out[name].astype(dtype)
            except (TypeError, ValueError):
                pass  # e.g. an int column with a failed row's NaN: left as it came
    return out


def worker_server(config: ServerConfig, approval: ApprovalPolicy) -> Server:
    """This process's connection for ``config`` and ``approval``: made on first use, kept
    for the process's life, connected again if it was lost."""
    key = _key(config, approval)
    with _lock:
        server = _servers.get(key)
        if server is None:
            client = Client(approval=approval, interaction=WorkerInteraction())
            server = _servers[key] = client.add_config(config, connect=False)
        connecting = _connecting.setdefault(key, threading.Lock())
    with connecting:  # one connect per key; partitions for other configs go on meanwhile
        if server.status is not Status.CONNECTED:
            with _lock:
                _opened[config.name] += 1
            server.restart()
    return server


class WorkerInteraction(Interaction):
    """Nobody sits at a worker: approvals follow the policy headless, and a map prints no
    progress lines (Dask's dashboard shows the partitions; every worker's lines would interleave)."""

    def map_text(self, server: str, tool: str) -> None:
        return None


def connections() -> dict[str, int]:
    """How many connections this process has opened, per server name (run it on the
    workers, e.g. ``client.run(connections)``, to see each reuse its own)."""
    with _lock:
        return dict(_opened)


def _key(config: ServerConfig, approval: ApprovalPolicy) -> str:
    # Held in memory only (it has the config's secrets); equal configs share a connection.
    fields = [dataclasses.asdict(config), dataclasses.asdict(approval)]
    return json.dumps(fields, sort_keys=True, default=lambda v: sorted(v) if isinstance(v, set) else str(v))
