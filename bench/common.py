"""What the benchmarks share: the bare floors (JSON-RPC over pipes, httpx), the SDK and
mcp-notebook clients timed the same way, the interleaved rounds that time them, a server
started to listen on loopback, and the table of medians with each ratio to the floor."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ARGS = {"message": "hi"}  # server-everything's echo
JSON = dict[str, Any]


def echo_call(rid: int, arguments: JSON = ARGS, meta: JSON | None = None) -> JSON:
    """The timed request: ``tools/call`` of ``echo`` (with the modern era's ``_meta`` if given)."""
    params = {"name": "echo", "arguments": arguments} | ({"_meta": meta} if meta else {})
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_listening(
    argv: list[str], port: int, env: Mapping[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """Start an HTTP server told to listen on ``port``; its process and MCP URL once it accepts."""
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"{' '.join(argv[:2])} did not listen on {port}")


class BareStdio:
    """The floor over stdio: blocking writes and readline on the pipes, in this thread. The
    ``handshake`` is sent first (each request's reply awaited); ``call(id)`` is the request timed."""

    def __init__(self, argv: list[str], handshake: list[JSON], call: Callable[[int], JSON]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert self.proc.stdin and self.proc.stdout
        self.w, self.r = self.proc.stdin, self.proc.stdout
        self.call, self.next_id = call, 1
        for message in handshake:
            self._send(message)
            if "id" in message:
                self._recv(message["id"])

    def _send(self, msg: JSON) -> None:
        self.w.write(json.dumps(msg).encode() + b"\n")
        self.w.flush()

    def _recv(self, rid: int) -> JSON:
        while True:
            msg = json.loads(self.r.readline())
            if msg.get("id") == rid and "method" not in msg:
                return dict(msg)

    def sequential(self, n: int) -> float:
        t = time.perf_counter()
        for _ in range(n):
            self.next_id += 1
            self._send(self.call(self.next_id))
            self._recv(self.next_id)
        return time.perf_counter() - t

    def concurrent(self, n: int) -> float:
        t = time.perf_counter()
        first = self.next_id + 1
        self.w.write(b"".join(json.dumps(self.call(first + i)).encode() + b"\n" for i in range(n)))
        self.w.flush()
        self.next_id += n
        got = 0
        while got < n:
            msg = json.loads(self.r.readline())
            if "method" not in msg and isinstance(msg.get("id"), int) and msg["id"] >= first:
                got += 1
        return time.perf_counter() - t

    def windowed(self, n: int, in_flight: int) -> float:
        """``n`` calls with ``in_flight`` outstanding at a time: a new request written as
        each reply is read (what a bulk map does, with nothing else on top)."""
        t = time.perf_counter()
        first = self.next_id + 1
        end = first + n
        sent = min(n, in_flight)
        self.w.write(b"".join(json.dumps(self.call(first + i)).encode() + b"\n" for i in range(sent)))
        self.w.flush()
        got = 0
        while got < n:
            msg = json.loads(self.r.readline())
            if "method" in msg or not isinstance(msg.get("id"), int) or not first <= msg["id"] < end:
                continue
            got += 1
            if sent < n:
                self._send(self.call(first + sent))
                sent += 1
        self.next_id += n
        return time.perf_counter() - t

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def reply(text: str) -> JSON:
    """The JSON-RPC reply in a JSON body or in an SSE body (its last data line)."""
    if text.lstrip().startswith("{"):
        return dict(json.loads(text))
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:") and line[5:].strip()]
    return dict(json.loads(data[-1]))


class BareHttp:
    """The floor over Streamable HTTP: httpx POSTs with ``headers`` and nothing on top
    (blocking for sequential, async for concurrent); ``call(id)`` is the request timed."""

    def __init__(self, url: str, headers: Mapping[str, str], call: Callable[[int], JSON]) -> None:
        import httpx

        self.url, self.call, self.next_id = url, call, 1
        self.http = httpx.Client(headers=dict(headers), timeout=30)
        self.loop = asyncio.new_event_loop()
        self.ahttp = httpx.AsyncClient(headers=dict(headers), timeout=30, limits=httpx.Limits(max_connections=None))

    def sequential(self, n: int) -> float:
        t = time.perf_counter()
        for _ in range(n):
            self.next_id += 1
            reply(self.http.post(self.url, content=json.dumps(self.call(self.next_id))).text)
        return time.perf_counter() - t

    def concurrent(self, n: int) -> float:
        async def one(rid: int) -> None:
            reply((await self.ahttp.post(self.url, content=json.dumps(self.call(rid)))).text)

        async def block() -> None:
            await asyncio.gather(*(one(self.next_id + 1 + i) for i in range(n)))

        t = time.perf_counter()
        self.loop.run_until_complete(block())
        self.next_id += n
        return time.perf_counter() - t

    def windowed(self, n: int, in_flight: int) -> float:
        """``n`` calls with ``in_flight`` outstanding at a time (as many workers, each
        POSTing the next call as its last is answered)."""
        ids = iter(range(self.next_id + 1, self.next_id + 1 + n))

        async def worker() -> None:
            for rid in ids:
                reply((await self.ahttp.post(self.url, content=json.dumps(self.call(rid)))).text)

        async def block() -> None:
            await asyncio.gather(*(worker() for _ in range(min(n, in_flight))))

        t = time.perf_counter()
        self.loop.run_until_complete(block())
        self.next_id += n
        return time.perf_counter() - t

    def close(self) -> None:
        self.loop.run_until_complete(self.ahttp.aclose())
        self.http.close()


class SdkClient:
    """The official SDK's ClientSession over the streams ``open_streams()`` gives, on its
    own thread's event loop; timed there."""

    def __init__(self, open_streams: Callable[[], AbstractAsyncContextManager[Any]]) -> None:
        from mcp import ClientSession

        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.stop = asyncio.Event()
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()

        async def hold() -> None:
            async with open_streams() as streams, ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                self.session = session
                ready.set_result(None)
                await self.stop.wait()

        self.holder = asyncio.run_coroutine_threadsafe(hold(), self.loop)
        ready.result(30)

    def _run(self, coro: Any) -> float:
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


class OurClient:
    """mcp-notebook: blocking calls from this thread; concurrent ones gathered on its loop.
    ``arguments`` are the echo tool's (server-everything's unless told); the rest go to
    ``Client.add``."""

    def __init__(self, *args: Any, arguments: JSON = ARGS, **kwargs: Any) -> None:
        sys.path.insert(0, str(ROOT))
        from mcp_notebook import Client

        self.arguments = arguments
        self.client = Client()
        self.server = self.client.add("bench", *args, **kwargs)

    def sequential(self, n: int) -> float:
        t = time.perf_counter()
        for _ in range(n):
            self.server.call_tool("echo", self.arguments)
        return time.perf_counter() - t

    def concurrent(self, n: int) -> float:
        async def block() -> None:
            await asyncio.gather(*(self.server.acall_tool("echo", self.arguments) for _ in range(n)))

        t = time.perf_counter()
        self.client.runtime.loop.run(block())
        return time.perf_counter() - t

    def close(self) -> None:
        self.client.close()


def rotated(items: list[Any], round_: int) -> list[Any]:
    """This round's running order: rotated each round, so that no client always runs right
    after the same other one (what a client leaves behind, such as threads winding down or
    a server still busy, then falls on each alike)."""
    k = round_ % len(items)
    return items[k:] + items[:k]


Times = dict[str, dict[str, list[float]]]  # client -> mode ("seq", "conc") -> s/call each round


def measure(
    clients: Mapping[str, Any], n: int, rounds: int, warmup: int, in_flight: int | None = None
) -> tuple[int, Times]:
    """Time ``n`` echo calls per client and mode in ``rounds`` interleaved blocks (after
    ``warmup`` calls each, untimed), concurrent ones ``in_flight`` at a time (all at once when
    None); then close the clients. The block size and the times."""
    block = max(1, n // rounds)
    times: Times = {name: {"seq": [], "conc": []} for name in clients}

    def concurrent(c: Any, k: int) -> float:  # k calls in batches of in_flight
        step = in_flight or max(k, 1)
        return float(sum(c.concurrent(min(step, k - i)) for i in range(0, k, step)))

    for c in clients.values():  # V8 optimises a server's hot path only after many calls
        c.sequential(warmup)
        concurrent(c, warmup)
    for r in range(rounds):
        for name, c in rotated(list(clients.items()), r):
            times[name]["seq"].append(c.sequential(block) / block)
        for name, c in rotated(list(clients.items()), r):
            times[name]["conc"].append(concurrent(c, block) / block)
    for c in clients.values():
        c.close()
    return block, times


def report(title: str, times: Times) -> None:
    """Medians (µs/call) and ratios to the first client, the floor, as a Markdown table. A
    ratio is the median of each round's ratio (a client's block to the floor's block of the
    same round): a busy VM's speed drifts over a run, and rounds pair like with like."""
    med = {name: {k: statistics.median(v) for k, v in t.items()} for name, t in times.items()}
    floor = next(iter(times.values()))

    def ratio(t: dict[str, list[float]], mode: str) -> float:
        return statistics.median(c / f for c, f in zip(t[mode], floor[mode], strict=True))

    print(f"{title}\n")
    print("| client | sequential µs/call | ratio | concurrent µs/call | ratio |")
    print("|---|---|---|---|---|")
    for name, m in med.items():
        t = times[name]
        print(
            f"| {name} | {m['seq'] * 1e6:.0f} | {ratio(t, 'seq'):.2f}x "
            f"| {m['conc'] * 1e6:.0f} | {ratio(t, 'conc'):.2f}x |"
        )
