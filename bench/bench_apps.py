"""MCP Apps in Chromium (JupyterLab): how soon a tool's view shows after its call's result,
and what a call through the view's bridge costs beside the same call from the kernel.

    python bench/bench_apps.py [--rounds 10] [--calls 20]

First paint: a cell runs ``r = %mcp call demo.plot_penguins`` and notes the time the call
returned (the view's document read and its widget made); the view's 342 points drawn are
timed in its frame. Both are read on the machine's one clock (``time.time()`` in the kernel,
``performance.timeOrigin + performance.now()`` in the frame). Each round runs the cell
again (a new view).

Bridge: the view calls ``penguin_points`` through the notebook (postMessage, the widget's
comm, the kernel, the server and back), timed in the view; the same call from the kernel
(``server.call_tool``), timed there. Medians. Targets on loopback: first paint ≤ 300 ms;
a bridge call ≤ 2x the kernel's + 20 ms.

Needs what the browser tests need (Debian's chromium, playwright, jupyterlab).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from pathlib import Path

from common import ROOT

sys.path.insert(0, str(ROOT / "tests"))
from support.frontends import APP_FRAME, WAIT_MS, NotebookPage, jupyter_server, launch, write_notebook

ARGS = {"x": "bill_length_mm", "y": "bill_depth_mm", "species": ["Adelie"]}
DRAWN = "() => document.querySelectorAll('circle').length >= 342 && performance.timeOrigin + performance.now()"
BRIDGE = """async ([args, n]) => {
    const times = [];
    for (let i = 0; i < n; i++) {
        const started = performance.now();
        await send("tools/call", { name: "penguin_points", arguments: args });  // the view's own function
        times.push(performance.now() - started);
    }
    return times;
}"""


def cells(calls: int) -> list[str]:
    return [
        f"%load_ext mcp_notebook\n%mcp add demo -- {sys.executable} -m mcp_notebook.demo",
        "import time\nr = %mcp call demo.plot_penguins\nprint('RETURNED', repr(time.time() * 1000))",
        "import json, time\nfrom mcp_notebook import get_client\nserver, times = get_client()['demo'], []\n"
        f"for _ in range({calls}):\n"
        "    started = time.perf_counter()\n"
        f"    server.call_tool('penguin_points', {ARGS!r})\n"
        "    times.append((time.perf_counter() - started) * 1000)\n"
        "print('DIRECT', json.dumps(times))",
    ]


def said(nb: NotebookPage, cell: int, pattern: str) -> str:
    match = re.search(pattern, nb.output(cell))
    if match is None:
        raise SystemExit(f"cell {cell} did not print what the bench reads: {nb.output(cell)[-500:]}")
    return match.group(1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=10, help="views shown (default 10)")
    ap.add_argument("--calls", type=int, default=20, help="bridge and kernel calls per round (default 20)")
    opts = ap.parse_args()
    from playwright.sync_api import sync_playwright

    paints: list[float] = []
    bridge: list[float] = []
    direct: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        folder = Path(tmp)
        write_notebook(folder / "bench.ipynb", cells(opts.calls))
        for url in jupyter_server(folder):
            browser = launch(p)
            page = browser.new_page(viewport={"width": 1200, "height": 1000})
            nb = NotebookPage(page, f"{url}/lab/tree/bench.ipynb?reset", "bench.ipynb")
            nb.run_all(0)
            for _ in range(opts.rounds + 1):  # the first round warms up (imports, the widget's module)
                nb.run(1)
                nb.finished(1)
                frame = nb.cell(1).locator(APP_FRAME).element_handle(timeout=WAIT_MS).content_frame()
                drawn = frame.wait_for_function(DRAWN, polling="raf", timeout=WAIT_MS).json_value()
                returned = float(said(nb, 1, r"RETURNED ([\d.]+)"))
                paints.append(drawn - returned)
                bridge.extend(frame.evaluate(BRIDGE, [ARGS, opts.calls]))
                nb.run(2)
                nb.finished(2)
                direct.extend(json.loads(said(nb, 2, r"DIRECT (\[.*\])")))
            browser.close()
    paints, bridge, direct = paints[1:], bridge[opts.calls :], direct[opts.calls :]
    paint, through, kernel = statistics.median(paints), statistics.median(bridge), statistics.median(direct)
    calls = opts.rounds * opts.calls
    print(f"MCP Apps in JupyterLab (Chromium): {opts.rounds} views, {calls} calls each way (medians)")
    print("| measure | ms | target |")
    print("|---|---:|---|")
    print(f"| first paint after the call returned | {paint:.0f} | ≤ 300 |")
    print(f"| penguin_points from the kernel | {kernel:.1f} | |")
    print(f"| penguin_points through the view's bridge | {through:.1f} | ≤ {2 * kernel + 20:.1f} (2x + 20 ms) |")
    return 0 if paint <= 300 and through <= 2 * kernel + 20 else 1


if __name__ == "__main__":
    sys.exit(main())
