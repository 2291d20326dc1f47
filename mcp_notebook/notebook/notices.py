"""The client's own lines in a cell (an error in one line, a policy's note), shown where
the frontend keeps them: Voilà drops error outputs and stderr, so there they are outputs
of their own. A line may quote a server: an address in it that the link policy refuses is
shown broken, never a link (places.cell_text)."""

from __future__ import annotations

import sys

from IPython.display import display

from ..core.safety.text import escape, printable
from .modes import in_voila
from .places import cell_text

__all__ = ["note", "show_error_line"]


def show_error_line(text: str) -> None:
    """A one-line error as an output of its own (text and HTML), for frontends that keep no
    error output (Voilà)."""
    text = cell_text(text)
    html_line = f"<div style='color:var(--jp-error-color1, #d33)'>{escape(text)}</div>"
    display({"text/plain": printable(text), "text/html": html_line}, raw=True)


def note(text: str) -> None:
    """A note from the client (a policy's answer): stderr, or, where stderr is not shown
    (Voilà strips it), an output of its own."""
    if in_voila():
        show_error_line(text)
    else:
        print(cell_text(text), file=sys.stderr)
