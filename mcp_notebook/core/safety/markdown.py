"""A server's Markdown (a skill's SKILL.md) as HTML that is safe to show in a notebook.

The text is parsed as CommonMark (markdown-it-py, a well-kept parser: the same reading a
person's renderer gives it, references and nested links included), with raw HTML turned
off, so that any markup in it shows as text, and every link and image checked as links.py
checks addresses: only ``https:`` (or a local ``http:``) becomes a link or an image; any
other stays the text it was written as. Control characters are shown as escapes.
"""

from __future__ import annotations

from .links import linkable
from .text import printable

__all__ = ["markdown_html"]


def markdown_html(text: str) -> str:
    """``text`` (Markdown from a server) rendered as HTML safe to show."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": False, "linkify": False})
    parser.validateLink = linkable  # type: ignore[method-assign]  # (its own hook for this)
    return str(parser.render(printable(text)))
