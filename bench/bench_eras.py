"""What choosing the protocol era costs, and calls at 2026-07-28.

1. Connect time against a legacy-only server (server-everything over stdio): ``auto`` (a
   ``server/discover`` probe, answered -32601, then ``initialize``) against a pinned
   ``legacy`` (``initialize`` only), interleaved; and a restart of each: under ``auto`` it
   does not probe again (the era is remembered per server). Target: auto within 50 ms of legacy,
   or paid once per server.
2. Sequential and concurrent ``echo`` calls at 2026-07-28 against an official-SDK server
   (tests/servers/sdk_modern.py) over stdio and Streamable HTTP: mcp-notebook against a bare
   loop speaking the same era (the floor), measured in the same run as bench_stdio.py and
   bench_http.py do; over stdio also mcp-notebook at 2025-11-25 against the same server.
   Targets: stdio ≤ 1.2x sequential, ≤ 1.5x concurrent; HTTP ≤ 1.3x.

    python bench/bench_eras.py [--connects 10] [-n 1000] [--rounds 10] [--skip-http]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from typing import Any

import httpx
from common import ROOT, report, rotated

sys.path.insert(0, str(ROOT))
from mcp_notebook import Client

EVERYTHING = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
NODE = os.environ.get("MCP_NOTEBOOK_NODE", "node")
SDK_SERVER = [sys.executable, str(ROOT / "tests/servers/sdk_modern.py")]
VERSION = "2026-07-28"
ARGS = {"text": "hi"}
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "b", "version": "0"},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "MCP-Protocol-Version": VERSION, "Mcp-Method": "tools/call", "Mcp-Name": "echo"}  # fmt: skip


def _call(rid: int) -> dict[str, Any]:
    params = {"name": "echo", "arguments": ARGS, "_meta": META}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


# -- 1. connect time -------------------------------------------------------------------------


def connects(rounds: int) -> None:
    client = Client()
    args = [str(EVERYTHING), "stdio"]
    times: dict[str, list[float]] = {"auto": [], "legacy": [], "auto, reconnect": [], "legacy, reconnect": []}
    notes: dict[str, str | None] = {}
    try:
        for r in range(rounds):
            for mode in rotated(["auto", "legacy"], r):
                t = time.perf_counter()
                server = client.add(f"e-{mode}", NODE, args, protocol=mode)
                times[mode].append(time.perf_counter() - t)
                notes[mode] = server.era_note
                # A restart (the old process closed, a new one started): under auto, seen
                # legacy now, it starts with initialize as the pin does.
                t = time.perf_counter()
                server.restart()
                times[f"{mode}, reconnect"].append(time.perf_counter() - t)
                notes[f"{mode}, reconnect"] = server.era_note
                client.remove(server.name)
    finally:
        client.close()
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"connect to server-everything over stdio: {rounds} rounds, interleaved (medians)\n")
    print("| connect | ms | auto over legacy | how the era was chosen |")
    print("|---|---|---|---|")
    for k, m in med.items():
        base = med[k.replace("auto", "legacy")]
        over = f"{(m - base) * 1e3:+.0f} ms ({m / base:.2f}x)" if k.startswith("auto") else ""
        print(f"| {k} | {m * 1e3:.0f} | {over} | {notes[k]} |")
    print()


# -- 2. calls at 2026-07-28 ------------------------------------------------------------------


class BareStdio:
    """The floor: blocking writes and readline on the pipes, every request with its _meta."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(SDK_SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)  # fmt: skip
        assert self.proc.stdin and self.proc.stdout
        self.w, self.r = self.proc.stdin, self.proc.stdout
        self.next_id = 1
        self._send({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": META}})
        self._recv(0)

    def _send(self, msg: dict[str, Any]) -> None:
        self.w.write(json.dumps(msg).encode() + b"\n")
        self.w.flush()

    def _recv(self, rid: int) -> dict[str, Any]:
        while True:
            msg = json.loads(self.r.readline())
            if msg.get("id") == rid and "method" not in msg:
                return msg

    def sequential(self, n: int) -> float:
        t = time.perf_counter()
        for _ in range(n):
            self.next_id += 1
            self._send(_call(self.next_id))
            self._recv(self.next_id)
        return time.perf_counter() - t

    def concurrent(self, n: int) -> float:
        t = time.perf_counter()
        first = self.next_id + 1
        self.w.write(b"".join(json.dumps(_call(first + i)).encode() + b"\n" for i in range(n)))
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


def _reply(text: str) -> dict[str, Any]:
    """The JSON-RPC reply in a JSON body or in an SSE body (its last data line)."""
    if text.lstrip().startswith("{"):
        return json.loads(text)
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:") and line[5:].strip()]
    return json.loads(data[-1])


class BareHttp:
    """The floor: httpx POSTs with the modern headers and _meta, nothing else."""

    def __init__(self, url: str) -> None:
        self.url, self.next_id = url, 1
        self.http = httpx.Client(headers=HEADERS, timeout=30)
        self.loop = asyncio.new_event_loop()
        self.ahttp = httpx.AsyncClient(headers=HEADERS, timeout=30, limits=httpx.Limits(max_connections=None))

    def sequential(self, n: int) -> float:
        t = time.perf_counter()
        for _ in range(n):
            self.next_id += 1
            _reply(self.http.post(self.url, content=json.dumps(_call(self.next_id))).text)
        return time.perf_counter() - t

    def concurrent(self, n: int) -> float:
        async def one(rid: int) -> None:
            _reply((await self.ahttp.post(self.url, content=json.dumps(_call(rid)))).text)

        async def block() -> None:
            await asyncio.gather(*(one(self.next_id + 1 + i) for i in range(n)))

        t = time.perf_counter()
        self.loop.run_until_complete(block())
        self.next_id += n
        return time.perf_counter() - t

    def close(self) -> None:
        self.loop.run_until_complete(self.ahttp.aclose())
        self.http.close()


class Ours:
    """mcp-notebook at 2026-07-28: blocking calls from this thread; concurrent ones gathered."""

    def __init__(self, *args: Any, protocol: str = VERSION, **kwargs: Any) -> None:
        self.client = Client()
        self.server = self.client.add("sdk", *args, protocol=protocol, **kwargs)
        assert self.server.protocol_version == (VERSION if protocol == VERSION else "2025-11-25")

    def sequential(self, n: int) -> float:
        t = time.perf_counter()
        for _ in range(n):
            self.server.call_tool("echo", ARGS)
        return time.perf_counter() - t

    def concurrent(self, n: int) -> float:
        async def block() -> None:
            await asyncio.gather(*(self.server.acall_tool("echo", ARGS) for _ in range(n)))

        t = time.perf_counter()
        self.client.runtime.loop.run(block())
        return time.perf_counter() - t

    def close(self) -> None:
        self.client.close()


def measure(title: str, clients: dict[str, Any], n: int, rounds: int, warmup: int, in_flight: int) -> None:
    block = max(1, n // rounds)
    times: dict[str, dict[str, list[float]]] = {name: {"seq": [], "conc": []} for name in clients}

    def concurrent(c: Any, k: int) -> float:  # k calls in batches of in_flight
        return sum(c.concurrent(min(in_flight, k - i)) for i in range(0, k, in_flight))

    for c in clients.values():
        c.sequential(warmup)
        concurrent(c, warmup)
    for r in range(rounds):
        for name, c in rotated(list(clients.items()), r):
            times[name]["seq"].append(c.sequential(block) / block)
        for name, c in rotated(list(clients.items()), r):
            times[name]["conc"].append(concurrent(c, block) / block)
    for c in clients.values():
        c.close()
    report(f"{title}: {rounds} rounds of {block} echo calls per client (medians)", times)
    print()


def http_server() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([*SDK_SERVER, "--http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"the SDK server did not listen on {port}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--connects", type=int, default=10, help="connect rounds (default 10)")
    ap.add_argument("-n", type=int, default=1000, help="calls per client and mode (default 1000)")
    ap.add_argument("--rounds", type=int, default=10, help="interleaved blocks (default 10)")
    ap.add_argument("--warmup", type=int, default=500, help="calls per client before measuring (default 500)")
    ap.add_argument("--concurrency", type=int, default=50, help="HTTP calls in flight at once (default 50)")
    ap.add_argument("--skip-http", action="store_true")
    opts = ap.parse_args()
    if not EVERYTHING.exists():
        print(f"server-everything not found at {EVERYTHING}: run `npm ci` first", file=sys.stderr)
        return 2
    connects(opts.connects)
    stdio = {
        "bare JSON-RPC loop (floor)": BareStdio(),
        "mcp-notebook Python API": Ours(SDK_SERVER[0], SDK_SERVER[1:]),
        # The same server at 2025-11-25: what the era itself costs, apart from the server.
        "mcp-notebook at 2025-11-25": Ours(SDK_SERVER[0], SDK_SERVER[1:], protocol="legacy"),
    }
    measure(f"SDK server over stdio at {VERSION}", stdio, opts.n, opts.rounds, opts.warmup, opts.n)
    if not opts.skip_http:
        proc, url = http_server()
        try:
            http = {
                "bare httpx loop (floor)": BareHttp(url),
                "mcp-notebook Python API": Ours(url=url, transport="http"),
            }
            measure(f"SDK server over Streamable HTTP at {VERSION}", http, opts.n, opts.rounds, opts.warmup,
                    opts.concurrency)  # fmt: skip
        finally:
            proc.kill()
            proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
