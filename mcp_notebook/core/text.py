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
"""

from __future__ import annotations

import html
import re

__all__ = ["CONTROL", "clipped", "escape", "printable"]

# What printable() never lets through (newline and tab are kept).
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_STYLE = re.compile("\x1b\\[[0-9;:]{0,32}m")


def _shown(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]  # '\x1b' -> \x1b, '\r' -> \r, '\u202e' -> \u202e


def printable(text: str) -> str:
    """``text`` with its control characters shown as escapes (see the module's notes)."""
    if not CONTROL.search(text):
        return text  # the usual case: nothing to do
    if "\x1b" in text:
        text = _STYLE.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return CONTROL.sub(_shown, text)


def escape(text: str) -> str:
    """``text`` for HTML: printable, then escaped (quotes too, for attributes)."""
    return html.escape(printable(text))


def clipped(text: str, width: int = 120) -> str:
    """A server's short text for a one-line message: printable, at most ``width`` characters."""
    text = text if len(text) <= width else text[: width - 1] + "…"
    return printable(text).replace("\n", "\\n")  # one line: a newline is shown too
