"""Where what a call brings shows (its cards, progress bars, log lines, the pages a server
needs visited): the cell's output, or, in a task that runs outside any cell (a form's Run,
started by a click), the place that task set, since it has no cell whose output a
display() or print() would reach.

A line said in a kernel's cell is stream output, where JupyterLab makes links of addresses:
each one the link policy refuses is shown broken (``cell_text``). A line in a task's place
is escaped HTML (``Line``), which it does not linkify.
"""

from __future__ import annotations

import contextvars
import sys
from typing import TYPE_CHECKING, Any, Protocol

from IPython import get_ipython
from IPython.display import display

from ..core.safety.links import unlinked
from ..core.safety.text import escape

if TYPE_CHECKING:
    from ipywidgets import Output

__all__ = ["SHOWN_IN", "Line", "OutputPlace", "Place", "cell_text", "say", "show"]


class Place(Protocol):
    """Where a task outside any cell shows what its call brings."""

    def show(self, obj: Any, keep: bool = False) -> None:
        """Display ``obj``: a card or a progress bar, gone when the run ends; ``keep``: it
        stays (a page the server needs visited)."""

    def print(self, text: str, stderr: bool = False) -> None:
        """A line of text that stays (a server's log message)."""

    def asking(self, card: Any) -> None:
        """``card`` (shown with ``show``) asks the person; it is this run's until it ends."""


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
    """print() a line in the cell (no address in it a link unless the policy allows it), or
    in the running task's place."""
    place = SHOWN_IN.get()
    if place is not None:
        place.print(text, stderr)
    else:
        print(cell_text(text), file=sys.stderr if stderr else sys.stdout)


def cell_text(text: str) -> str:
    """``text`` (a line that may quote a server) as a cell shows it as text: in a kernel, each
    address the link policy refuses broken (core/safety/links.py ``unlinked``), since
    JupyterLab and Notebook 7 make links of the addresses in text outputs; on a terminal
    (terminal IPython) as it is."""
    return text if getattr(get_ipython(), "kernel", None) is None else unlinked(text)


class OutputPlace:
    """An Output widget while a run runs: the cards and bars the run's call brings until
    ``end()``, its log lines and pages to visit for good.

    A form's Run clears the output first (its result then takes the place of the cards). A
    view's requests share the view's cards area and run at once (``clear=False``): each run
    takes away only what it showed, so a card another request is waiting on stays.

    Written as widget state (``append_display_data``), not captured with ``with output:``:
    a capture follows the message being handled, and a task started by a click outside any
    cell has none the front end still listens to."""

    def __init__(self, output: Output, clear: bool = True) -> None:
        self.output = output
        self.kept: list[dict[str, Any]] = []  # the outputs that stay, in order
        self.shown: list[dict[str, Any]] = []  # the outputs that go when the run ends
        self.cards: list[Any] = []  # the cards this run asked with
        if clear:
            output.outputs = ()

    def __repr__(self) -> str:
        return f"<OutputPlace kept={len(self.kept)} shown={len(self.shown)}>"

    def show(self, obj: Any, keep: bool = False) -> None:
        self.output.append_display_data(obj)
        (self.kept if keep else self.shown).append(self.output.outputs[-1])

    def print(self, text: str, stderr: bool = False) -> None:
        self.output.append_display_data(Line(text, stderr))
        self.kept.append(self.output.outputs[-1])

    def asking(self, card: Any) -> None:
        self.cards.append(card)

    def end(self) -> None:
        """The run is over: what stays stays, what it showed for the while goes (another
        run's outputs stay as they are)."""
        gone = {id(o) for o in self.shown}
        self.output.outputs = tuple(o for o in self.output.outputs if id(o) not in gone)
        self.shown.clear()


class Line:
    """A line of text in an Output widget, as escaped HTML rather than stream output:
    JupyterLab and Notebook 7 make links of the addresses in stream output, and an address a
    server or a view sent must not become clickable unless the link policy allowed it."""

    def __init__(self, text: str, stderr: bool = False) -> None:
        self.text, self.stderr = text, stderr

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        shade = ";background:var(--jp-rendermime-error-background, #fdd)" if self.stderr else ""
        return f"<pre style='margin:0;padding:0 2px;white-space:pre-wrap{shade}'>{escape(self.text)}</pre>"
