"""A map's progress as text where no progress bar shows it: a line every few seconds at
most in a headless run (stderr not a terminal), a line redrawn in place in plain Python on
a terminal. The headless lines are driven by a fake clock that the rows advance as they are
read: what is printed does not depend on the machine's speed."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pexpect
from support.terminal import environment, plain

from mcp_notebook import Client
from mcp_notebook.runtime.asking.interaction import ConsoleInteraction
from mcp_notebook.runtime.asking.progress import MapProgress
from mcp_notebook.runtime.asking.textprogress import MapText

DEMO = (sys.executable, ["-m", "mcp_notebook.demo"])


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class Logged(ConsoleInteraction):
    """Plain Python whose stderr is a log (not a terminal), on a fake clock."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock
        self.log = io.StringIO()

    def map_text(self, server: str, tool: str) -> Callable[[MapProgress], None] | None:
        return MapText(server, tool, self.log, now=self.clock)


class Ticking:
    """Rows (of known length) that advance the clock a second each as they are read."""

    def __init__(self, clock: Clock, rows: list[dict[str, Any]]) -> None:
        self.clock, self.rows = clock, rows

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for row in self.rows:
            self.clock.t += 1.0
            yield row


def test_a_headless_map_prints_a_line_every_few_seconds_at_most() -> None:
    clock = Clock()
    interaction = Logged(clock)
    client = Client(interaction=interaction)
    try:
        demo = client.add("demo", *DEMO)
        rows = [{"species": "Gentoo"}] * 12
        rows[5] = {"species": "Emperor"}  # not one of the schema's species: an error row
        out = demo.map("query_penguins", Ticking(clock, rows), concurrency=1, limit=1)
        assert len(out) == 12 and out["is_error"].sum() == 1
        # Read 3 rows ahead (approval's look-ahead), then one per finished row: row n ends at n s.
        assert interaction.log.getvalue().splitlines() == [
            "mcp-notebook: demo.query_penguins map: 8/12 rows, 1.6/s, ETA 2s, 1 error",
            "mcp-notebook: demo.query_penguins map: 12/12 rows, 1.3/s, 1 error",
        ]
        quick = io.StringIO()
        interaction.log = quick
        demo.map("query_penguins", Ticking(clock, rows[:4]), concurrency=1, limit=1)
        assert quick.getvalue() == ""  # ended within the first interval: nothing printed
    finally:
        client.close()


def test_plain_python_on_a_terminal_redraws_one_line(tmp_path: Path) -> None:
    code = f"""
from mcp_notebook import Client
client = Client()
demo = client.add("demo", {sys.executable!r}, ["-m", "mcp_notebook.demo"])
out = demo.map("query_penguins", [{{"species": "Gentoo"}}] * 999 + [{{"species": "Emperor"}}], limit=1)
print("rows:", len(out), "errors:", int(out["is_error"].sum()))
client.close()
"""
    child = pexpect.spawn(sys.executable, ["-c", code], cwd=str(tmp_path), env=environment(tmp_path),
                          encoding="utf-8", timeout=120, dimensions=(50, 200))  # fmt: skip
    child.expect(pexpect.EOF)
    shown = plain(child.before)
    before, _, after = shown.partition("rows: 1000 errors: 1")
    assert after.strip() == "", shown[-500:]
    assert before.startswith("\r") and before.endswith("\n") and before.count("\n") == 1, before[-300:]
    redraws = before[1:].split("\r")  # one line, redrawn in place, ended once
    assert redraws[0].startswith("[demo.query_penguins (map)] 0% (0/1,000) 0 errors"), redraws[:2]
    last = redraws[-1].strip()
    assert last.startswith("[demo.query_penguins (map)] 100% (1,000/1,000) ") and last.endswith("/s, 1 error"), last
