"""A server's text made safe to show: control characters are shown, never obeyed.

A terminal obeys what it prints: an escape sequence in a tool's result or a log line could
clear the screen, retitle the window, write the clipboard (OSC 52) or draw a fake prompt
over the real one, and a bidi override can make text read other than it is. So every text
rendering of what a server sent goes through ``printable``; the data itself (a result's
``.content``, ``.text``, ``.raw``) stays exactly what the server sent.

- Colour and style sequences (SGR, ``ESC [ … m``, common in a server's stderr) are removed.
- Every other C0 control but newline and tab, DEL, the C1 controls (U+0080-U+009F) and the
  bidi overrides and isolates (U+202A-U+202E, U+2066-U+2069) are shown as their Python
  escapes: ``\\x1b``, ``\\r``, ``\\x9b``, ``\\u202e``.
- A ``\\r\\n`` line end is a line end; a lone ``\\r`` (which would overwrite the line) is shown.

A name a server gives (a tool's, a prompt's, a resource's) goes through ``shown_name``
instead: there nothing may be removed or hidden (``ec\\x1b[mho`` must not read ``echo``), so
every character that is not visible by itself (controls, colour sequences included, newline
and tab, format characters such as U+200B and the bidi marks, separators other than a space,
and every Default_Ignorable code point: U+034F, the variation selectors, the Hangul fillers,
the tags) is shown as its escape, and a backslash as ``\\\\`` (an escape cannot pass for another name).
"""

from __future__ import annotations

import html
import re

# Defined in errors.py, which imports nothing of ours: every error's str() needs it.
from ...errors import CONTROL, printable

__all__ = ["CONTROL", "IGNORABLE", "clipped", "escape", "escape_name", "printable", "shown_name"]


def escape(text: str) -> str:
    """``text`` for HTML: printable, then escaped (quotes too, for attributes)."""
    return html.escape(printable(text))


def clipped(text: str, width: int = 120) -> str:
    """A server's short text for a one-line message: printable, at most ``width`` characters."""
    text = text if len(text) <= width else text[: width - 1] + "…"
    return printable(text).replace("\n", "\\n")  # one line: a newline is shown too


# Unicode's Default_Ignorable_Code_Point: shown as nothing at all, though Python counts some
# printable (U+034F, the variation selectors, the Hangul fillers, the tags at U+E0000...).
IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)


def shown_name(name: str) -> str:
    """A server's name (a tool's, a prompt's) as a person must read it: visible characters
    as they are, every other one (and a backslash) as its Python escape, so that a name that
    differs shows different."""
    if name.isprintable() and "\\" not in name and not IGNORABLE.search(name):
        return name  # the usual case: nothing to do
    return "".join(_shown_char(c) for c in name)


def _shown_char(c: str) -> str:
    if c == "\\" or not c.isprintable():
        return repr(c)[1:-1]
    if IGNORABLE.match(c):  # printable to Python, so repr() keeps it as it is
        return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
    return c


def escape_name(name: str) -> str:
    """``shown_name`` for HTML."""
    return html.escape(shown_name(name))
