"""Where what a call brings shows (its cards, progress bars, log lines, the pages a server
needs visited): the cell's output, or, in a task that runs outside any cell (a form's Run,
started by a click), the place that task set, since it has no cell whose output a
display() or print() would reach.
"""

from __future__ import annotations

import contextvars
import sys
from typing import TYPE_CHECKING, Any, Protocol

from IPython.display import display

if TYPE_CHECKING:
    from ipywidgets import Output

__all__ = ["SHOWN_IN", "OutputPlace", "Place", "say", "show"]


class Place(Protocol):
    """Where a task outside any cell shows what its call brings."""

    def show(self, obj: Any, keep: bool = False) -> None:
        """Display ``obj``: a card or a progress bar, gone when the run ends; ``keep``: it
        stays (a page the server needs visited)."""

    def print(self, text: str, stderr: bool = False) -> None:
        """A line of text that stays (a server's log message)."""


# The place of the running task; None: the cell's own output.
SHOWN_IN: contextvars.ContextVar[Place | None] = contextvars.ContextVar("shown_in", default=None)


def show(obj: Any, keep: bool = False) -> None:
    """display() ``obj`` in the cell, or in the running task's place."""
    place = SHOWN_IN.get()
    if place is not None:
        place.show(obj, keep)
    else:
        display(obj)


def say(text: str, stderr: bool = False) -> None:
    """print() a line in the cell, or in the running task's place."""
    place = SHOWN_IN.get()
    if place is not None:
        place.print(text, stderr)
    else:
        print(text, file=sys.stderr if stderr else sys.stdout)


class OutputPlace:
    """A form's Output widget while its Run runs: the cards and bars the call brings until
    ``end()`` (its result then takes their place), its log lines and pages to visit for good.

    Written as widget state (``append_display_data``), not captured with ``with output:``:
    a capture follows the message being handled, and a task started by a click outside any
    cell has none the front end still listens to."""

    def __init__(self, output: Output) -> None:
        self.output = output
        self.kept: list[dict[str, Any]] = []  # the outputs that stay, in order
        output.outputs = ()

    def __repr__(self) -> str:
        return f"<OutputPlace kept={len(self.kept)}>"

    def show(self, obj: Any, keep: bool = False) -> None:
        self.output.append_display_data(obj)
        if keep:
            self.kept.append(self.output.outputs[-1])

    def print(self, text: str, stderr: bool = False) -> None:
        (self.output.append_stderr if stderr else self.output.append_stdout)(text + "\n")
        self.kept.append(self.output.outputs[-1])

    def end(self) -> None:
        """The run is over: what stays stays, the rest goes."""
        self.output.outputs = tuple(self.kept)
