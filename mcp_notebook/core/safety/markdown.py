"""A server's Markdown, fit to render in a notebook (a skill's SKILL.md).

Jupyter renders Markdown output as HTML. A server's text must not become live HTML there,
nor a link that is not ``https:`` (or a local ``http:``, links.py): raw HTML is escaped, a
link or image to any other address becomes its text and the address in code, and a bare
address that a renderer would turn into a link is put in code. Code blocks and code spans
are left as they are (they render as text). Control characters are shown as escapes.
"""

from __future__ import annotations

import re

from .links import linkable
from .text import printable

__all__ = ["safe_markdown"]

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"\n]*\")?\s*\)")
_BARE = re.compile(r"(?<![(`<])\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s<>`)\]]+")


def safe_markdown(text: str) -> str:
    """``text`` (Markdown from a server) safe to render as Markdown in a notebook."""
    out, at = [], 0
    for fence in _FENCE.finditer(text):
        out.append(_prose(text[at : fence.start()]))
        out.append(fence.group(0))
        at = fence.end()
    out.append(_prose(text[at:]))
    return printable("".join(out))


def _prose(text: str) -> str:
    out, at = [], 0
    for span in _CODE_SPAN.finditer(text):
        out.append(_outside_code(text[at : span.start()]))
        out.append(span.group(0))
        at = span.end()
    out.append(_outside_code(text[at:]))
    return "".join(out)


def _outside_code(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    def link(match: re.Match[str]) -> str:
        image, label, url = match.group(1), match.group(2), match.group(3).replace("&amp;", "&")
        if linkable(url) and not image:
            return match.group(0)
        return f"{label} (`{url}`)" if label else f"`{url}`"

    kept: list[str] = []

    def hold(match: re.Match[str]) -> str:
        kept.append(link(match))
        return f"\x00{len(kept) - 1}\x00"

    text = _LINK.sub(hold, text)
    text = _BARE.sub(lambda m: m.group(0) if linkable(m.group(0)) else f"`{m.group(0)}`", text)
    return re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], text)
