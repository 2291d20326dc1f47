"""Progress as text, where no progress bar shows it: a line redrawn in place on a terminal
(tqdm-style), or a line every few seconds at most in a log, a pipe or a headless run.

``ProgressLine`` is a call's (terminal IPython shows it instead of a progress card);
``MapText`` is a bulk map's for an ``Interaction`` that shows no progress (plain Python, a
script, a headless run): ``Interaction.map_text`` makes one, on stderr. Clocks are
injectable (``now``) so that what is printed when does not depend on the machine's speed.
"""

from __future__ import annotations

import math
import shutil
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from ...core.safety.text import printable

if TYPE_CHECKING:
    from .progress import MapProgress

__all__ = ["MapText", "PeriodicLine", "ProgressLine", "count", "is_terminal"]

EVERY = 5.0  # seconds between the lines of a headless run's progress


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def count(value: float) -> str:
    """``10,000`` for a whole number (not ``10000`` nor ``1e+06``), else ``2.5``."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


class ProgressLine:
    """A call's progress on a terminal, instead of a progress bar: ``[demo.fit_model] 40%
    (4/10) epoch 4/10``. On a terminal it is one line redrawn in place, a few times a
    second at most (a server may send thousands of updates); elsewhere (output to a file
    or a pipe) the first update and the last, two lines."""

    every = 0.2  # seconds between redraws

    def __init__(
        self, server: str, tool: str, stream: TextIO | None = None, *, now: Callable[[], float] = time.monotonic
    ) -> None:
        self.stream = stream or sys.stdout
        self.tty = is_terminal(self.stream)
        self.now = now
        self.prefix = printable(f"[{server}.{tool}]").replace("\n", " ")
        self.text = self.prefix
        self.shown = ""  # what the terminal shows now (on a terminal), or the last line printed
        self.updates = 0
        self.last = 0.0
        self.finished = False

    def update(self, progress: float, total: float | None, message: str | None) -> None:
        if total:
            shown = f" {100 * min(progress / total, 1):.0f}% ({count(progress)}/{count(total)})"
        else:
            shown = "" if math.isnan(progress) else f" {count(progress)}"  # NaN: a status (a task's), no count
        tail = " " + " ".join(printable(message).split()) if message else ""
        self.text = f"{self.prefix}{shown}{tail}"
        self.updates += 1
        now = self.now()
        if self.updates == 1 or (self.tty and now - self.last >= self.every):
            self.last = now
            self._draw()

    def _draw(self) -> None:
        if not self.tty:
            self.stream.write(self.text + "\n")
            self.shown = self.text
        else:
            # One screen line at most: a wrapped line cannot be redrawn with \r.
            width = max(shutil.get_terminal_size().columns - 1, 20)
            text = self.text[:width]
            self.stream.write("\r" + text + " " * max(len(self.shown) - len(text), 0))
            self.shown = text
        self.stream.flush()

    def clear(self) -> None:
        """Take the line off the screen (a log line is printed in its place)."""
        if self.tty and self.shown:
            self.stream.write("\r" + " " * len(self.shown) + "\r")
            self.stream.flush()
            self.shown = ""

    def redraw(self) -> None:
        if self.tty and self.updates and not self.finished:
            self._draw()

    def finish(self, note: str) -> None:
        if self.finished:
            return
        self.finished = True
        if note != "done":
            self.text += f" ({note})"
        if self.text != self.shown:
            self._draw()
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def __repr__(self) -> str:
        return f"<ProgressLine {self.text!r}>"


class PeriodicLine:
    """Progress where nothing can be redrawn (a log, a pipe, a headless run): a line every
    ``every`` seconds at most and none in the first ``every`` seconds (a quick run prints
    nothing), then a last line if any was printed."""

    def __init__(
        self, stream: TextIO | None = None, *, every: float = EVERY, now: Callable[[], float] = time.monotonic
    ):
        self.stream = stream or sys.stderr
        self.every, self.now = every, now
        self.last = now()
        self.printed = 0
        self.finished = False

    def __repr__(self) -> str:
        return f"<PeriodicLine every={self.every}s printed={self.printed}>"

    def update(self, text: str) -> None:
        now = self.now()
        if now - self.last >= self.every:
            self.last = now
            self._print(text)

    def finish(self, text: str) -> None:
        if not self.finished:
            self.finished = True
            if self.printed:
                self._print(text)

    def _print(self, text: str) -> None:
        self.printed += 1
        self.stream.write(printable(text).replace("\n", " ") + "\n")
        self.stream.flush()


class MapText:
    """A map's progress (an ``on_progress`` callback) on ``stream`` (stderr): on a terminal a
    ``ProgressLine`` (``[demo.echo (map)] 41% (4,120/10,000) 812.3/s, ETA 7s, 3 errors``);
    elsewhere a ``PeriodicLine`` (``mcp-notebook: demo.echo map: 4,120/10,000 rows, …``)."""

    def __init__(
        self,
        server: str,
        tool: str,
        stream: TextIO | None = None,
        *,
        every: float = EVERY,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        stream = stream or sys.stderr
        self.label, self.now, self.started = f"{server}.{tool} map", now, now()
        self.line: ProgressLine | None = None
        self.periodic: PeriodicLine | None = None
        if is_terminal(stream):
            self.line = ProgressLine(server, f"{tool} (map)", stream, now=now)
        else:
            self.periodic = PeriodicLine(stream, every=every, now=now)

    def __repr__(self) -> str:
        return f"<MapText {self.label!r} {'terminal' if self.line else 'periodic'}>"

    def __call__(self, progress: MapProgress) -> None:
        # Called after every row: the text is made only when it is to be shown.
        now = self.now()
        elapsed = now - self.started  # its note says "cancelled" when it was
        line, periodic = self.line, self.periodic
        if line is not None:
            if progress.finished or not line.updates or now - line.last >= line.every:
                line.update(progress.done, progress.total, progress.note(elapsed))
            if progress.finished:
                line.finish("done")
        elif periodic is not None and (progress.finished or now - periodic.last >= periodic.every):
            text = f"mcp-notebook: {self.label}: {progress.describe(elapsed)}"
            if progress.finished:
                periodic.finish(text)
            else:
                periodic.update(text)
