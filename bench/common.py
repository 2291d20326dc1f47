"""What the benchmarks share: the SDK and mcp-notebook clients timed the same way, and the
table of medians with each ratio to the floor."""

from __future__ import annotations

import asyncio
import concurrent.futures
import statistics
import sys
import threading
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ARGS = {"message": "hi"}


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
    """mcp-notebook: blocking calls from this thread; concurrent ones gathered on its loop."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        sys.path.insert(0, str(ROOT))
        from mcp_notebook import Client

        self.client = Client()
        self.server = self.client.add("everything", *args, **kwargs)

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


def rotated(items: list[Any], round_: int) -> list[Any]:
    """This round's running order: rotated each round, so that no client always runs right
    after the same other one (what a client leaves behind, such as threads winding down or
    a server still busy, then falls on each alike)."""
    k = round_ % len(items)
    return items[k:] + items[:k]


def report(title: str, times: dict[str, dict[str, list[float]]]) -> None:
    """Medians (µs/call) and ratios to the first client, the floor, as a Markdown table."""
    med = {name: {k: statistics.median(v) for k, v in t.items()} for name, t in times.items()}
    floor = next(iter(med.values()))
    print(f"{title}\n")
    print("| client | sequential µs/call | ratio | concurrent µs/call | ratio |")
    print("|---|---|---|---|---|")
    for name, m in med.items():
        print(
            f"| {name} | {m['seq'] * 1e6:.0f} | {m['seq'] / floor['seq']:.2f}x "
            f"| {m['conc'] * 1e6:.0f} | {m['conc'] / floor['conc']:.2f}x |"
        )
