"""``%mcp diff`` of many renamed tools against the same listing unchanged, in one run.

    python bench/bench_diff.py [--sizes 300,3000,30000] [--rounds 5]

For each size N, two listings of N tools, each with its own input schema titled after the
tool as the official SDK titles it (``tool_7Arguments``): (a) the baseline, ``compare`` of
a listing with an equal copy of itself (every tool looked up by name and found equal: the
least a diff does), and (b) ``compare`` of it with the same tools all renamed (every
rename matched by what a caller sees of the tool). Rounds interleave the two (order
alternating); the table gives each side's median and (b)'s ratio to (a). Matching renames
is linear when that ratio stays flat as N grows tenfold (before it was bucketed, 3,000
renames took 52 s: the ratio grew with N). Target: the ratio at 30,000 within 2x of the
ratio at 300.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from typing import Any

from common import ROOT

sys.path.insert(0, str(ROOT))

from mcp_notebook.core.listings.compare import compare

JSON = dict[str, Any]


def listing(count: int, prefix: str) -> JSON:
    tools = []
    for i in range(count):
        name = f"{prefix}{i}"
        schema = {"type": "object", "title": f"{name}Arguments", "required": [f"p{i}"],
                  "properties": {f"p{i}": {"type": "string", "title": f"P{i}"},
                                 "limit": {"type": "integer", "default": 10, "title": "Limit"}}}  # fmt: skip
        tools.append({"name": name, "description": f"Tool {i}.", "inputSchema": schema})
    return {"tools": tools}


def timed(old: JSON, new: JSON) -> float:
    t = time.perf_counter()
    compare(old, new)
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="300,3000,30000")
    parser.add_argument("--rounds", type=int, default=5)
    opts = parser.parse_args()
    print("| tools | (a) unchanged s | (b) all renamed s | ratio (b)/(a) |")
    print("|---|---|---|---|")
    ratios = []
    for size in (int(n) for n in opts.sizes.split(",")):
        old = listing(size, "tool_")
        sides = {"unchanged": copy.deepcopy(old), "renamed": listing(size, "renamed_")}
        assert sum(c.change == "renamed" for c in compare(old, sides["renamed"])) == size  # warm-up, and right
        times: dict[str, list[float]] = {name: [] for name in sides}
        for r in range(opts.rounds):
            for name in list(sides) if r % 2 == 0 else list(sides)[::-1]:
                times[name].append(timed(old, sides[name]))
        base, renamed = statistics.median(times["unchanged"]), statistics.median(times["renamed"])
        ratios.append(renamed / base)
        print(f"| {size:,} | {base:.4f} | {renamed:.4f} | {renamed / base:.1f}x |")
    print(f"\nratio at the largest size / at the smallest: {ratios[-1] / ratios[0]:.2f} (target: within 2)")


if __name__ == "__main__":
    main()
