"""A big resource into a DataFrame against the bare JSON-RPC floor reading the same, in one run.

    python bench/bench_resource.py [--mb 30] [--big-mb 100] [--rounds 5] [--no-big]

A minimal raw stdio server (tests/servers/tables_raw.py, no SDK) serves a generated table
of about ``--mb`` MB as CSV text (``table://data.csv``) and the same rows as a base64
Parquet blob (``table://data.parquet``, with pyarrow installed):
  (a) the floor: a bare ``resources/read`` over the server's pipes (after initialize),
      the reply line ``json.loads``-ed, then ``pandas.read_csv(io.StringIO(text))``
      (Parquet: ``base64.b64decode`` + ``pandas.read_parquet``),
  (b) ``server.read_resource(uri).to_frame()``, blocking, as a user calls it,
and for CSV a third row: the floor with the text encoded once and read from bytes, as
``to_frame()`` does (pandas's parser reads bytes: it is faster than from a ``StringIO``).
Both run in interleaved rounds (order alternating) after a warm-up read each; the table
gives the median wall, the spread and the ratio to (a). Target: CSV (b) <= 1.3x (a).

Then the same CSV as a tool result's text, in this process (no server): ``to_frame()`` of a
``CallResult`` holding it (the readers sniff it, pandas' C parser reads it, codes are looked for,
dtypes given: ``day`` becomes datetime64) against the floor ``pandas.read_csv`` of the same
text's bytes (``day`` left as text). No target: the floor does less (no sniffing, no codes, no dates).

Then the same CSV at ``--big-mb`` MB, read with ``max_message_size`` raised (it is over the
default 32 MiB), and the error a client with the default limit gets for it (one line; the
connection stays usable: a small resource is read after it).
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import statistics
import subprocess
import sys
import time
from typing import Any

from common import ROOT

SERVER = str(ROOT / "tests/servers/tables_raw.py")
FLOOR = "floor: bare JSON-RPC read + pandas"
ENCODED = "bare JSON-RPC read + read_csv(BytesIO(text.encode()))"
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "0"}}


class Floor:
    """The floor: blocking writes and readline on the server's pipes, in this thread."""

    def __init__(self, megabytes: float, encode: bool = False) -> None:
        self.encode = encode  # read_csv(BytesIO(text.encode())): pandas's parser reads bytes
        argv = [sys.executable, SERVER, str(megabytes)]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert self.proc.stdin and self.proc.stdout
        self.w, self.r, self.next_id = self.proc.stdin, self.proc.stdout, 1
        self.request("initialize", INIT)
        self.w.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.w.flush()

    def request(self, method: str, params: dict[str, Any]) -> Any:
        rid, self.next_id = self.next_id, self.next_id + 1
        self.w.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode() + b"\n")
        self.w.flush()
        while True:
            message = json.loads(self.r.readline())
            if message.get("id") == rid:
                return message["result"]

    def frame(self, uri: str) -> Any:
        import pandas as pd

        content = self.request("resources/read", {"uri": uri})["contents"][0]
        if "blob" in content:
            return pd.read_parquet(io.BytesIO(base64.b64decode(content["blob"])))
        if self.encode:
            return pd.read_csv(io.BytesIO(content["text"].encode()))
        return pd.read_csv(io.StringIO(content["text"]))

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait()


class Ours:
    """mcp-notebook's side: ``server.read_resource(uri).to_frame()``, blocking."""

    def __init__(self, megabytes: float, max_message_size: int | None = None) -> None:
        from mcp_notebook import Client, Settings

        settings = Settings() if max_message_size is None else Settings(max_message_size=max_message_size)
        self.client = Client(settings=settings)
        self.server = self.client.add("tables", sys.executable, [SERVER, str(megabytes)])

    def frame(self, uri: str) -> Any:
        return self.server.read_resource(uri).to_frame()

    def close(self) -> None:
        self.client.close()


class TextFloor:
    """The floor for a tool result's CSV text: ``pandas.read_csv`` of its bytes."""

    def __init__(self, text: str) -> None:
        self.text = text

    def frame(self, uri: str) -> Any:
        import pandas as pd

        return pd.read_csv(io.BytesIO(self.text.encode()))


class ToolText:
    """``CallResult.to_frame()`` of a tool result whose one text block is the CSV."""

    def __init__(self, text: str) -> None:
        from mcp_notebook import CallResult

        self.result = CallResult.from_raw("tables", "table", {"content": [{"type": "text", "text": text}]})

    def frame(self, uri: str) -> Any:
        return self.result.to_frame()


def table_text(megabytes: float) -> str:
    """The CSV the server makes, made here (the same generator)."""
    sys.path.insert(0, str(ROOT / "tests/servers"))
    saved, sys.argv = sys.argv, [SERVER, "0"]  # the module reads its size from argv when imported
    try:
        import tables_raw
    finally:
        sys.argv = saved
    return str(tables_raw.table_csv(megabytes))


def timed(side: Any, uri: str) -> float:
    t = time.perf_counter()
    side.frame(uri)
    return time.perf_counter() - t


def compare(title: str, sides: dict[str, Any], uri: str, rounds: int) -> None:
    names = list(sides)
    for side in sides.values():
        shape = side.frame(uri).shape  # warm-up: pandas, pyarrow imported; the same table on both
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            times[name].append(timed(sides[name], uri))
    floor = statistics.median(times[names[0]])
    print(f"\n{title} ({shape[0]:,} rows x {shape[1]} columns, {rounds} rounds)\n")
    print("| side | median s | spread s | ratio |")
    print("|---|---|---|---|")
    for name in names:
        med = statistics.median(times[name])
        print(f"| {name} | {med:.3f} | {min(times[name]):.3f}-{max(times[name]):.3f} | {med / floor:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=30.0)
    parser.add_argument("--big-mb", type=float, default=100.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-big", action="store_true")
    opts = parser.parse_args()

    sides: dict[str, Any] = {FLOOR: Floor(opts.mb), "read_resource().to_frame()": Ours(opts.mb)}
    try:
        csv_sides = {**sides, ENCODED: Floor(opts.mb, encode=True)}
        compare(f"{opts.mb:g} MB CSV text resource", csv_sides, "table://data.csv", opts.rounds)
        csv_sides.pop(ENCODED).close()
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            print("\n(Parquet skipped: pip install pyarrow)")
        else:
            compare(f"{opts.mb:g} MB of CSV as a base64 Parquet blob", sides, "table://data.parquet", opts.rounds)
    finally:
        for side in sides.values():
            side.close()
    text = table_text(opts.mb)
    tool = {"floor: read_csv(BytesIO(text.encode()))": TextFloor(text), "CallResult.to_frame()": ToolText(text)}
    compare(f"{opts.mb:g} MB CSV as a tool result's text", tool, "", opts.rounds)
    if opts.no_big:
        return

    raised = 4 * int(opts.big_mb * 2**20)
    big = {FLOOR: Floor(opts.big_mb), "max_message_size raised": Ours(opts.big_mb, raised)}
    try:
        compare(f"{opts.big_mb:g} MB CSV text resource", big, "table://data.csv", max(1, opts.rounds // 2))
    finally:
        for side in big.values():
            side.close()

    default = Ours(opts.big_mb)
    try:
        default.frame("table://data.csv")
        print("\nno error: the resource fits the default limit")
    except Exception as e:
        print(f"\nwith the default limit: {type(e).__name__}: {e}")
        print(f"then a small resource on the same connection: {default.frame('table://small.csv').shape[0]} rows")
    finally:
        default.close()


if __name__ == "__main__":
    main()
