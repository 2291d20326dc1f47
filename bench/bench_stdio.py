"""Sequential and concurrent `echo` calls over stdio against server-everything.

Compares, in one process and one run:
  (a) a bare JSON-RPC loop over the pipes (the floor),
  (b) the official SDK's ClientSession (if `mcp` is installed),
  (c) mcp-notebook's Python API (blocking calls; and `a`-methods gathered for concurrency).

    python bench/bench_stdio.py [-n 1000] [--rounds 10] [--server PATH/TO/server-everything/dist/index.js]

The clients run interleaved blocks of calls, so that the machine's noise falls on all of
them alike; it prints the median µs/call and each ratio to (a). Targets: (c) ≤ 1.2x sequential, ≤ 1.5x concurrent.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SERVER = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
NODE = os.environ.get("MCP_NOTEBOOK_NODE", "node")
ARGS = {"message": "hi"}


def _init_messages() -> list[dict]:
    return [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "b", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]


class Bare:
    """The floor: blocking writes and readline on the pipes, in this thread."""

    def __init__(self, server: str) -> None:
        self.proc = subprocess.Popen(
            [NODE, server, "stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        assert self.proc.stdin and self.proc.stdout
        self.w, self.r = self.proc.stdin, self.proc.stdout
        self.next_id = 1
        init, initialized = _init_messages()
        self._send(init)
        self._recv(0)
        self._send(initialized)

    def _send(self, msg: dict) -> None:
        self.w.write(json.dumps(msg).encode() + b"\n")
        self.w.flush()

    def _recv(self, rid: int) -> dict:
        while True:
            msg = json.loads(self.r.readline())
            if msg.get("id") == rid and "method" not in msg:
                return msg

    def _call(self, rid: int) -> dict:
        return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "echo", "arguments": ARGS}}

    def sequential(self, n: int) -> float:
        t = time.perf_counter()
        for _ in range(n):
            self.next_id += 1
            self._send(self._call(self.next_id))
            self._recv(self.next_id)
        return time.perf_counter() - t

    def concurrent(self, n: int) -> float:
        t = time.perf_counter()
        first = self.next_id + 1
        self.w.write(b"".join(json.dumps(self._call(first + i)).encode() + b"\n" for i in range(n)))
        self.w.flush()
        self.next_id += n
        got = 0
        while got < n:
            msg = json.loads(self.r.readline())
            if "method" not in msg and isinstance(msg.get("id"), int) and msg["id"] >= first:
                got += 1
        return time.perf_counter() - t

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


class Sdk:
    """The official SDK's ClientSession, on its own thread's event loop; timed there."""

    def __init__(self, server: str) -> None:
        import anyio
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.stop = asyncio.Event()
        ready: concurrent.futures.Future = concurrent.futures.Future()

        async def hold() -> None:
            params = StdioServerParameters(command=NODE, args=[server, "stdio"])
            with open(os.devnull, "w") as devnull:
                async with stdio_client(params, errlog=devnull) as (read, write), ClientSession(read, write) as session:
                    await session.initialize()
                    self.session = session
                    ready.set_result(None)
                    await self.stop.wait()

        self.anyio = anyio
        self.holder = asyncio.run_coroutine_threadsafe(hold(), self.loop)
        ready.result(30)

    def _run(self, coro):  # type: ignore[no-untyped-def]
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def sequential(self, n: int) -> float:
        async def block() -> float:
            t = time.perf_counter()
            for _ in range(n):
                await self.session.call_tool("echo", ARGS)
            return time.perf_counter() - t

        return self._run(block())

    def concurrent(self, n: int) -> float:
        async def block() -> float:
            t = time.perf_counter()
            await asyncio.gather(*(self.session.call_tool("echo", ARGS) for _ in range(n)))
            return time.perf_counter() - t

        return self._run(block())

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        try:
            self.holder.result(10)
        except Exception:
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)


class Ours:
    """mcp-notebook: blocking calls from this thread; concurrent ones gathered on its loop."""

    def __init__(self, server: str) -> None:
        sys.path.insert(0, str(ROOT))
        from mcp_notebook import Client

        self.client = Client()
        self.server = self.client.add("everything", NODE, [server, "stdio"])

    def sequential(self, n: int) -> float:
        t = time.perf_counter()
        for _ in range(n):
            self.server.call_tool("echo", ARGS)
        return time.perf_counter() - t

    def concurrent(self, n: int) -> float:
        async def block() -> None:
            await asyncio.gather(*(self.server.acall_tool("echo", ARGS) for _ in range(n)))

        t = time.perf_counter()
        self.client._loop_thread.run(block())
        return time.perf_counter() - t

    def close(self) -> None:
        self.client.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=1000, help="calls per client and mode (default 1000)")
    ap.add_argument("--rounds", type=int, default=10, help="interleaved blocks (default 10)")
    ap.add_argument("--warmup", type=int, default=2000, help="calls per client before measuring (default 2000)")
    ap.add_argument("--server", default=str(DEFAULT_SERVER))
    opts = ap.parse_args()
    if not Path(opts.server).exists():
        print(f"server-everything not found at {opts.server}: run `npm ci` first", file=sys.stderr)
        return 2
    clients: dict[str, Any] = {"bare JSON-RPC loop (floor)": Bare(opts.server)}
    try:
        clients["official SDK ClientSession"] = Sdk(opts.server)
    except ImportError:
        print("(the official SDK `mcp` is not installed: its row is left out)")
    clients["mcp-notebook Python API"] = Ours(opts.server)
    # Interleaved blocks, medians: the machine's noise hits every client alike.
    block = max(1, opts.n // opts.rounds)
    times: dict[str, dict[str, list[float]]] = {name: {"seq": [], "conc": []} for name in clients}
    for c in clients.values():  # V8 optimises a server's hot path only after many calls
        c.sequential(opts.warmup)
        c.concurrent(opts.warmup)
    for _ in range(opts.rounds):
        for name, c in clients.items():
            times[name]["seq"].append(c.sequential(block) / block)
        for name, c in clients.items():
            times[name]["conc"].append(c.concurrent(block) / block)
    for c in clients.values():
        c.close()
    med = {name: {k: statistics.median(v) for k, v in t.items()} for name, t in times.items()}
    floor = med["bare JSON-RPC loop (floor)"]
    print(f"server-everything over stdio: {opts.rounds} rounds of {block} echo calls per client (medians)\n")
    print("| client | sequential µs/call | ratio | concurrent µs/call | ratio |")
    print("|---|---|---|---|---|")
    for name, m in med.items():
        print(
            f"| {name} | {m['seq'] * 1e6:.0f} | {m['seq'] / floor['seq']:.2f}x "
            f"| {m['conc'] * 1e6:.0f} | {m['conc'] / floor['conc']:.2f}x |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
