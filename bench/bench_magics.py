"""The notebook layer's costs, each against a baseline measured in the same run.

    python bench/bench_magics.py [-n 2000] [--tools 10000]

1. `%mcp call` against the Python API call it wraps (target: at most 150 µs more a call),
   in interleaved blocks against server-everything over stdio.
2. `import mcp_notebook` in a fresh interpreter: the time over a bare interpreter, and
   that it imports neither pandas, ipywidgets nor IPython.
3. 10,000 tools (a generated server built on the official SDK) into the `%mcp tools`
   DataFrame (target: at most 1 s), from the cached listing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EVERYTHING = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
PAGED = ROOT / "tests/servers/paged_server.py"


def magic_overhead(n: int, rounds: int) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mcp_notebook")
    ip.run_line_magic("mcp", f"add everything -- node {EVERYTHING} stdio")
    from mcp_notebook import get_client

    server = get_client()["everything"]
    block = max(1, n // rounds)

    def api() -> None:
        server.call_tool("echo", {"message": "hi"})

    def magic() -> None:
        ip.run_line_magic("mcp", "call everything.echo message=hi")

    times: dict[str, list[float]] = {"api": [], "magic": []}
    for fn in (api, magic):
        for _ in range(1000):  # warm both paths and the server's JIT
            fn()
    for _ in range(rounds):
        for name, fn in (("api", api), ("magic", magic)):
            t = time.perf_counter()
            for _ in range(block):
                fn()
            times[name].append((time.perf_counter() - t) / block)
    api_us = statistics.median(times["api"]) * 1e6
    magic_us = statistics.median(times["magic"]) * 1e6
    verdict = "ok" if magic_us - api_us <= 150 else "OVER the 150 µs target"
    print(
        f"1. %mcp call {magic_us:.0f} µs vs Python API {api_us:.0f} µs: +{magic_us - api_us:.0f} µs a call ({verdict})"
    )
    ip.run_line_magic("mcp", "remove everything")


def import_cost() -> None:
    def run(code: str) -> float:
        best = float("inf")
        for _ in range(7):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            best = min(best, time.perf_counter() - t)
        return best

    bare = run("pass")
    ours = run("import mcp_notebook")
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, mcp_notebook; print(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    heavy = sorted({m.split(".")[0] for m in loaded} & {"pandas", "ipywidgets", "IPython", "jsonschema", "httpx"})
    print(f"2. import mcp_notebook: +{(ours - bare) * 1000:.1f} ms over a bare interpreter ({bare * 1000:.1f} ms); "
          f"heavy modules imported: {heavy or 'none'}")  # fmt: skip


def many_tools(count: int) -> None:
    from mcp_notebook import Client
    from mcp_notebook.commands.tables import tools_frame

    client = Client()
    server = client.add("many", sys.executable, [str(PAGED), str(count), "1000"], startup_timeout=60)
    t = time.perf_counter()
    tools = server.list_tools()
    listed = time.perf_counter() - t
    t = time.perf_counter()
    frame = tools_frame(server.list_tools())
    framed = time.perf_counter() - t
    client.close()
    verdict = "ok" if framed <= 1.0 else "OVER the 1 s target"
    print(f"3. {len(tools):,} tools: listed in {listed:.2f} s ({len(tools) // 1000 + 1} pages); "
          f"DataFrame {frame.shape} in {framed:.3f} s ({verdict})")  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=2000, help="calls per path (default 2000)")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--tools", type=int, default=10_000)
    opts = ap.parse_args()
    magic_overhead(opts.n, opts.rounds)
    import_cost()
    many_tools(opts.tools)
    return 0


if __name__ == "__main__":
    sys.exit(main())
