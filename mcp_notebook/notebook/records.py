"""What a card leaves in the notebook once it is answered: a record of what was asked, what
was answered and by whom, as text/plain and text/html, in place of the card.

A saved notebook keeps outputs, not widgets: GitHub, nbviewer and nbconvert show a widget as
its Python repr, and JupyterLab as "model not found". So the card, answered or closed,
replaces itself (``update_display``) with this record, which reads the same live and saved.
What a server sent is escaped; what looks secret is masked (redact.shown).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from ..core.loggers import NOTEBOOK as LOG
from ..core.safety.redact import shown
from ..core.safety.text import escape, printable

__all__ = ["Record"]

_BOX = (
    "border-left:3px solid var(--jp-border-color1, #bbb);padding:2px 8px;margin:4px 0;"
    "color:var(--jp-content-font-color1, inherit)"
)
_PRE = "white-space:pre-wrap;margin:2px 0;font-size:0.9em"
_FAINT = "color:var(--jp-content-font-color2, #666);font-size:0.9em"


@dataclass
class Record:
    """A card's question and, once there is one, its outcome."""

    asked: str  # one line: "🔐 Approve a tool call? demo.delete_penguins"
    details: list[tuple[str, Any]] = field(default_factory=list)  # (label, value) shown under it
    outcome: str | None = None  # "approved", "declined", "withdrawn by the server"
    by: str | None = None  # "you", or None: nobody answered (closed)
    answer: list[tuple[str, Any]] = field(default_factory=list)  # what was sent back
    at: str = ""

    def settle(self, outcome: str, by: str | None, answer: list[tuple[str, Any]] | None = None) -> None:
        self.outcome, self.by, self.answer, self.at = outcome, by, answer or [], time.strftime("%H:%M:%S")
        LOG.info("%s %s", printable(self.asked), printable(self.ending()))  # not the values: they may be secret

    def ending(self) -> str:
        who = f" by {self.by}" if self.by else ""
        return f"→ {self.outcome}{who} at {self.at}"

    def text(self) -> str:
        lines = [printable(self.asked)]
        lines += [f"  {printable(label)}: {printable(_plain(value))}" for label, value in [*self.details, *self.answer]]
        if self.outcome:
            lines.append(f"  {printable(self.ending())}")
        return "\n".join(lines)

    def html(self) -> str:
        rows = "".join(
            f"<div><span style='{_FAINT}'>{escape(label)}</span><pre style='{_PRE}'>{escape(_plain(value))}</pre></div>"
            for label, value in [*self.details, *self.answer]
        )
        end = f"<div><b>{escape(self.ending())}</b></div>" if self.outcome else ""
        return f"<div style='{_BOX}'><div>{escape(self.asked)}</div>{rows}{end}</div>"

    def bundle(self) -> dict[str, str]:
        return {"text/plain": self.text(), "text/html": self.html()}


def _plain(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(shown(value), ensure_ascii=False, default=str)
