"""How results look in a notebook (HTML) and a terminal (text).

The core's result types reach these renderers from their own ``_repr_mimebundle_``, so
results show richly in any frontend, with or without ``%load_ext``, from a magic or from
the Python API. Large outputs warn past one threshold and truncate the display (never
the data) past another (the text ones: unless given a ``Budget``, the command line's).

What a server sent is untrusted: HTML renderings escape it, and every rendering (HTML and
text) shows its control characters as escapes (core/safety/text.py), so that a terminal never
obeys them. The data itself is never changed.
"""

from __future__ import annotations

import html
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.safety.text import escape, escape_name, printable, shown_name
from ..core.types import CallResult, PromptResult, ReadResult

__all__ = [
    "Budget",
    "DisplayOptions",
    "PRE_STYLE",
    "call_result_html",
    "call_result_text",
    "mimebundle",
    "options",
    "prompt_result_html",
    "prompt_result_text",
    "read_result_html",
    "read_result_text",
]

_MUTED = "color:var(--jp-content-font-color2, #666);font-size:0.85em"  # a theme's variable
PRE_STYLE = "white-space:pre-wrap;margin:0.2em 0;padding:0.4em;background:rgba(127,127,127,0.08);border-radius:3px"
_ERROR = "border-left:4px solid #d33;background:rgba(221,51,51,0.08);padding:0.4em 0.6em;margin:0.2em 0"
_WARN = "border-left:4px solid #e90;background:rgba(238,153,0,0.08);padding:0.3em 0.6em;margin:0.2em 0"


@dataclass
class DisplayOptions:
    warn_tokens: int = 10_000  # a note above outputs larger than this (as Claude Code warns)
    max_tokens: int = 25_000  # the display is cut here; the data never is
    max_rows: int = 60  # rows of a table shown


options = DisplayOptions()


def _tokens(chars: int) -> int:
    return chars // 4  # the usual rough estimate: about four characters a token


class Budget:
    """Characters left to show before a display is cut (None: never cut); ``cut``: whether
    it was. A display makes its own from ``options``; the command line passes one."""

    def __init__(self, chars: int | None) -> None:
        self.left = chars
        self.cut = False

    def take(self, text: str) -> str:
        if self.left is None:
            return text
        if len(text) <= self.left:
            self.left -= len(text)
            return text
        shown, self.left, self.cut = text[: self.left], 0, True
        return shown


def _size_notes(total_chars: int, budget: Budget, where: str, html_out: bool) -> list[str]:
    notes = []
    tokens = _tokens(total_chars)
    if tokens > options.warn_tokens:
        notes.append(f"Large output: about {tokens:,} tokens (warning at {options.warn_tokens:,}).")
    if budget.cut:
        notes.append(f"Display cut at about {options.max_tokens:,} tokens; the full data is in {where}.")
    if not notes:
        return []
    if html_out:
        return [f'<div style="{_WARN}">{escape(" ".join(notes))}</div>']
    return [f"⚠ {n}" for n in notes]


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _table_html(records: Any) -> str | None:
    from ..core.tables.frames import records_of

    rows = records_of(records)
    if rows is None:
        return None
    import pandas as pd

    return _frame_html(pd.DataFrame.from_records(rows))


def _frame_html(frame: Any) -> str:
    return str(frame.to_html(max_rows=options.max_rows, border=0, show_dimensions=True))


def _data_uri(mime: str, data: str) -> str:
    return f"data:{html.escape(mime, quote=True)};base64,{html.escape(data, quote=True)}"


def _block_html(block: dict[str, Any], budget: Budget) -> str:
    kind = block.get("type")
    if kind == "text":
        return f'<pre style="{PRE_STYLE}">{escape(budget.take(str(block.get("text", ""))))}</pre>'
    if kind == "image" and block.get("data"):
        return f'<img src="{_data_uri(block.get("mimeType", "image/png"), block["data"])}" style="max-width:100%"/>'
    if kind == "audio" and block.get("data"):
        return f'<audio controls src="{_data_uri(block.get("mimeType", "audio/wav"), block["data"])}"></audio>'
    if kind == "resource_link":
        name = escape(str(block.get("title") or block.get("name") or ""))
        uri = escape(str(block.get("uri", "")))
        extra = " · ".join(escape(str(block[k])) for k in ("mimeType", "description") if block.get(k))
        return f"<div>🔗 <b>{name}</b> <code>{uri}</code> <span style='{_MUTED}'>{extra}</span></div>"
    if kind == "resource":
        return _contents_html(block.get("resource") or {}, budget)
    return f'<pre style="{PRE_STYLE}">{escape(budget.take(_json(block)))}</pre>'


def _contents_html(item: dict[str, Any], budget: Budget) -> str:
    uri = escape(str(item.get("uri", "")))
    mime = str(item.get("mimeType") or "")
    head = f"<div style='{_MUTED}'>📄 <code>{uri}</code> {escape(mime)}</div>"
    if "text" in item:
        return head + f'<pre style="{PRE_STYLE}">{escape(budget.take(str(item["text"])))}</pre>'
    blob = str(item.get("blob", ""))
    if mime.startswith("image/"):
        return head + f'<img src="{_data_uri(mime, blob)}" style="max-width:100%"/>'
    if mime.startswith("audio/"):
        return head + f'<audio controls src="{_data_uri(mime, blob)}"></audio>'
    return head + f"<div style='{_MUTED}'>{len(blob) * 3 // 4:,} bytes (use .bytes)</div>"


_NOTHING = object()


def _records(value: Any) -> list[Any]:
    """The rows a structured value holds: itself when a list, else its first list's."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return next((v for v in value.values() if isinstance(v, list)), [])
    return []


def _row_keys(structured: Any) -> set[str]:
    """The structured value's rows, each as canonical JSON (one set per result: a lookup per
    text block, not a scan of every row)."""
    keys = set()
    for row in _records(structured):
        if isinstance(row, dict):
            try:
                keys.add(json.dumps(row, sort_keys=True))
            except (TypeError, ValueError):
                pass
    return keys


def _repeats(block: dict[str, Any], structured: Any, rows: set[str]) -> bool:
    """Whether a text block only says what the structured value says: its JSON, the value
    a one-key wrapper holds ({"result": …}, as SDKs wrap a plain return), or one of its
    ``rows`` (``_row_keys``)."""
    text = block.get("text", "")
    if block.get("type") != "text" or not isinstance(text, str):
        return False
    try:
        value = json.loads(text)
    except ValueError:
        value = _NOTHING
    if value == structured:
        return True
    if isinstance(structured, dict) and len(structured) == 1:
        (inner,) = structured.values()
        if text == inner or value == inner:
            return True
    return isinstance(value, dict) and bool(rows) and json.dumps(value, sort_keys=True) in rows


def _structured_shown(result: CallResult) -> bool:
    """Whether the structured value is shown: not when it only wraps the one text block
    (``{"result": "deleted 68 …"}`` beside the text itself): the text says it once."""
    structured = result.structured
    if structured is None:
        return False
    texts = [b for b in result.content if b.get("type") == "text"]
    if isinstance(structured, dict) and len(structured) == 1 and len(texts) == len(result.content) == 1:
        (inner,) = structured.values()
        return not (isinstance(inner, (str, int, float, bool)) and _repeats(texts[0], structured, set()))
    return True


def _shown_blocks(result: CallResult, structured_shown: bool) -> list[dict[str, Any]]:
    """Content blocks worth showing: one that only repeats the structured value (shown as a
    table or JSON: ``structured_shown``) is left out, so that each thing shows once."""
    if not structured_shown:
        return result.content
    rows = _row_keys(result.structured)
    return [b for b in result.content if not _repeats(b, result.structured, rows)]


def _result_size(result: CallResult) -> int:
    size = sum(len(str(b.get("text", ""))) for b in result.content)
    return size + (len(_json(result.structured)) if result.structured is not None else 0)


def call_result_html(result: CallResult) -> str:
    budget = Budget(options.max_tokens * 4)
    parts: list[str] = []
    if result.is_error:
        parts.append(
            f'<div style="{_ERROR}"><b>Tool error</b> from <code>{escape(result.server)}.'
            f"{escape_name(result.tool)}</code></div>"
        )
    structured_shown = _structured_shown(result)
    shown = _shown_blocks(result, structured_shown)
    parts += [_block_html(b, budget) for b in shown]
    if structured_shown:
        table = _table_html(result.structured)
        parts.append(table or f'<pre style="{PRE_STYLE}">{escape(budget.take(_json(result.structured)))}</pre>')
    if result.output_error:
        parts.append(f'<div style="{_WARN}">{escape(result.output_error)}</div>')
    parts = _size_notes(_result_size(result), budget, ".content / .text / .structured", True) + parts
    blocks = len(result.content)
    footer = f"{result.server}.{shown_name(result.tool)} · {blocks} content block{'s' * (blocks != 1)}"
    if len(shown) < blocks:
        footer += f" ({blocks - len(shown)} repeating the structured value, not shown)"
    if result.structured is not None:
        footer += " · structured (.structured, .to_frame())"
    parts.append(f"<div style='{_MUTED}'>{escape(footer)}</div>")
    return "<div class='mcp-result'>" + "".join(parts) + "</div>"


def _block_text(block: dict[str, Any], budget: Budget) -> str:
    kind = block.get("type")
    if kind == "text":
        return budget.take(str(block.get("text", "")))
    if kind in ("image", "audio"):
        return f"[{kind} {block.get('mimeType', '')}, {len(str(block.get('data', ''))) * 3 // 4:,} bytes]"
    if kind == "resource_link":
        return f"[link {block.get('name', '')}: {block.get('uri', '')}]"
    if kind == "resource":
        item = block.get("resource") or {}
        if "text" in item:
            return f"[resource {item.get('uri', '')}]\n" + budget.take(str(item["text"]))
        return f"[resource {item.get('uri', '')}, {item.get('mimeType', '')}]"
    return budget.take(_json(block))


def call_result_text(result: CallResult, budget: Budget | None = None) -> str:
    """The result as text. ``budget``: the command line's, which says itself what it cut
    (no size notes here); None: the display's own, cut past ``options.max_tokens`` with notes."""
    notes_wanted = budget is None
    if budget is None:
        budget = Budget(options.max_tokens * 4)
    lines = ["Tool error:"] if result.is_error else []
    structured_shown = _structured_shown(result)
    lines += [_block_text(b, budget) for b in _shown_blocks(result, structured_shown)]
    if structured_shown:
        lines.append(budget.take(_json(result.structured)))
    if result.output_error:
        lines.append(f"⚠ {result.output_error}")
    if notes_wanted:
        lines = _size_notes(_result_size(result), budget, ".content / .text / .structured", False) + lines
    return printable("\n".join(lines))


def read_result_html(result: ReadResult) -> str:
    budget = Budget(options.max_tokens * 4)
    parts = []
    for item in result.contents:
        table = None
        mime = str(item.get("mimeType") or "")
        tabular = mime in ("text/csv", "text/tab-separated-values", "application/json")
        if tabular and "text" in item and len(result.contents) == 1:
            try:
                table = _frame_html(result.to_frame())
            except ValueError:
                table = None  # not records after all: shown as text below
        if table:
            uri = escape(str(item.get("uri", "")))
            parts.append(f"<div style='{_MUTED}'>📄 <code>{uri}</code> {escape(mime)}</div>{table}")
        else:
            parts.append(_contents_html(item, budget))
    size = sum(len(str(i.get("text", i.get("blob", "")))) for i in result.contents)
    parts = _size_notes(size, budget, ".text / .bytes / .contents", True) + parts
    parts.append(
        f"<div style='{_MUTED}'>{escape(result.server)} · {escape(result.uri)} · "
        f"{len(result.contents)} item(s) · .text, .bytes, .to_frame()</div>"
    )
    return "<div class='mcp-resource'>" + "".join(parts) + "</div>"


def read_result_text(result: ReadResult, budget: Budget | None = None) -> str:
    """The contents as text; ``budget`` as for ``call_result_text``."""
    notes_wanted = budget is None
    if budget is None:
        budget = Budget(options.max_tokens * 4)
    lines = []
    for item in result.contents:
        if "text" in item:
            lines.append(budget.take(str(item["text"])))
        else:
            lines.append(
                f"[{item.get('mimeType', 'blob')}, {len(str(item.get('blob', ''))) * 3 // 4:,} bytes: use .bytes]"
            )
    if notes_wanted:
        size = sum(len(str(i.get("text", i.get("blob", "")))) for i in result.contents)
        lines = _size_notes(size, budget, ".text / .bytes / .contents", False) + lines
    return printable("\n".join(lines))


def prompt_result_html(result: PromptResult) -> str:
    budget = Budget(options.max_tokens * 4)
    parts = [f"<div style='{_MUTED}'>{escape(result.description)}</div>"] if result.description else []
    for message in result.messages:
        role = escape(str(message.get("role", "")))
        content = message.get("content") or {}
        parts.append(f"<div><b>{role}</b>{_block_html(content, budget)}</div>")
    return "<div class='mcp-prompt'>" + "".join(parts) + "</div>"


def prompt_result_text(result: PromptResult, budget: Budget | None = None) -> str:
    """The messages as text; ``budget`` as for ``call_result_text`` (a prompt has no size notes)."""
    if budget is None:
        budget = Budget(options.max_tokens * 4)
    lines = [result.description] if result.description else []
    for message in result.messages:
        lines.append(f"[{message.get('role', '')}] {_block_text(message.get('content') or {}, budget)}")
    return printable("\n".join(lines))


# -- the results' own display -------------------------------------------------------------

_RENDERERS: dict[type, tuple[Callable[[Any], str], Callable[[Any], str]]] = {
    CallResult: (call_result_html, call_result_text),
    ReadResult: (read_result_html, read_result_text),
    PromptResult: (prompt_result_html, prompt_result_text),
}


def mimebundle(result: Any, include: Any = None, exclude: Any = None) -> dict[str, str]:
    """What a result's ``_repr_mimebundle_`` gives: text and HTML, as asked for."""
    to_html, to_text = next(r for kind, r in _RENDERERS.items() if isinstance(result, kind))
    bundle = {}
    if _wanted("text/plain", include, exclude):
        bundle["text/plain"] = to_text(result)
    if _wanted("text/html", include, exclude) and _shows_html():
        bundle["text/html"] = to_html(result)
    return bundle


def _wanted(mime: str, include: Any, exclude: Any) -> bool:
    return (not include or mime in include) and not (exclude and mime in exclude)


def _shows_html() -> bool:
    """False in terminal IPython (it shows text only): its HTML would be made for nothing,
    a table's at the cost of importing pandas."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    formatter = shell.display_formatter.formatters.get("text/html") if shell is not None else None
    return formatter is None or bool(formatter.enabled)
