"""How results look in a notebook (HTML) and a terminal (text).

The core's result types reach these renderers from their own ``_repr_mimebundle_``, so
results show richly in any frontend, with or without ``%load_ext``, from a magic or from
the Python API. Large outputs warn past one threshold and truncate the display (never
the data) past another.

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

from ..core.protocol.era import is_modern
from ..core.safety.text import escape, printable
from ..core.types import CallResult, PromptResult, ReadResult, Status
from ..runtime import Server

__all__ = [
    "DisplayOptions",
    "ServerLogs",
    "ServerStatus",
    "call_result_html",
    "call_result_text",
    "mimebundle",
    "options",
    "prompt_result_html",
    "prompt_result_text",
    "read_result_html",
    "read_result_text",
    "summary_line",
]

_MUTED = "color:var(--jp-content-font-color2, #666);font-size:0.85em"  # a theme's variable
_PRE = "white-space:pre-wrap;margin:0.2em 0;padding:0.4em;background:rgba(127,127,127,0.08);border-radius:3px"
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


class _Budget:
    """Characters left to show before the display is cut."""

    def __init__(self) -> None:
        self.left = options.max_tokens * 4
        self.cut = False

    def take(self, text: str) -> str:
        if len(text) <= self.left:
            self.left -= len(text)
            return text
        shown, self.left, self.cut = text[: self.left], 0, True
        return shown


def _size_notes(total_chars: int, budget: _Budget, where: str, html_out: bool) -> list[str]:
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


def _block_html(block: dict[str, Any], budget: _Budget) -> str:
    kind = block.get("type")
    if kind == "text":
        return f'<pre style="{_PRE}">{escape(budget.take(str(block.get("text", ""))))}</pre>'
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
    return f'<pre style="{_PRE}">{escape(budget.take(_json(block)))}</pre>'


def _contents_html(item: dict[str, Any], budget: _Budget) -> str:
    uri = escape(str(item.get("uri", "")))
    mime = str(item.get("mimeType") or "")
    head = f"<div style='{_MUTED}'>📄 <code>{uri}</code> {escape(mime)}</div>"
    if "text" in item:
        return head + f'<pre style="{_PRE}">{escape(budget.take(str(item["text"])))}</pre>'
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
    budget = _Budget()
    parts: list[str] = []
    if result.is_error:
        parts.append(
            f'<div style="{_ERROR}"><b>Tool error</b> from <code>{escape(result.server)}.'
            f"{escape(result.tool)}</code></div>"
        )
    structured_shown = _structured_shown(result)
    shown = _shown_blocks(result, structured_shown)
    parts += [_block_html(b, budget) for b in shown]
    if structured_shown:
        table = _table_html(result.structured)
        parts.append(table or f'<pre style="{_PRE}">{escape(budget.take(_json(result.structured)))}</pre>')
    if result.output_error:
        parts.append(f'<div style="{_WARN}">{escape(result.output_error)}</div>')
    parts = _size_notes(_result_size(result), budget, ".content / .text / .structured", True) + parts
    blocks = len(result.content)
    footer = f"{result.server}.{result.tool} · {blocks} content block{'s' * (blocks != 1)}"
    if len(shown) < blocks:
        footer += f" ({blocks - len(shown)} repeating the structured value, not shown)"
    if result.structured is not None:
        footer += " · structured (.structured, .to_frame())"
    parts.append(f"<div style='{_MUTED}'>{escape(footer)}</div>")
    return "<div class='mcp-result'>" + "".join(parts) + "</div>"


def _block_text(block: dict[str, Any], budget: _Budget) -> str:
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


def call_result_text(result: CallResult) -> str:
    budget = _Budget()
    lines = ["Tool error:"] if result.is_error else []
    structured_shown = _structured_shown(result)
    lines += [_block_text(b, budget) for b in _shown_blocks(result, structured_shown)]
    if structured_shown:
        lines.append(budget.take(_json(result.structured)))
    if result.output_error:
        lines.append(f"⚠ {result.output_error}")
    notes = _size_notes(_result_size(result), budget, ".content / .text / .structured", False)
    return printable("\n".join(notes + lines))


def read_result_html(result: ReadResult) -> str:
    budget = _Budget()
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


def read_result_text(result: ReadResult) -> str:
    budget = _Budget()
    lines = []
    for item in result.contents:
        if "text" in item:
            lines.append(budget.take(str(item["text"])))
        else:
            lines.append(
                f"[{item.get('mimeType', 'blob')}, {len(str(item.get('blob', ''))) * 3 // 4:,} bytes: use .bytes]"
            )
    size = sum(len(str(i.get("text", i.get("blob", "")))) for i in result.contents)
    return printable("\n".join(_size_notes(size, budget, ".text / .bytes / .contents", False) + lines))


def prompt_result_html(result: PromptResult) -> str:
    budget = _Budget()
    parts = [f"<div style='{_MUTED}'>{escape(result.description)}</div>"] if result.description else []
    for message in result.messages:
        role = escape(str(message.get("role", "")))
        content = message.get("content") or {}
        parts.append(f"<div><b>{role}</b>{_block_html(content, budget)}</div>")
    return "<div class='mcp-prompt'>" + "".join(parts) + "</div>"


def prompt_result_text(result: PromptResult) -> str:
    budget = _Budget()
    lines = [result.description] if result.description else []
    for message in result.messages:
        lines.append(f"[{message.get('role', '')}] {_block_text(message.get('content') or {}, budget)}")
    return printable("\n".join(lines))


# -- servers -----------------------------------------------------------------------------


def summary_line(server: Server, counts: dict[str, int | None]) -> str:
    """One line about a server: ✓ name: server version · protocol · counts."""
    if server.error:
        return printable(f"✗ {server.name}: {server.error}")
    if server.status is Status.DISABLED:
        return f"○ {server.name}: disabled ({server.config.source}); %mcp restart {server.name} connects it"
    info = server.server_info
    shown = ", ".join(f"{n} {k[:-1] if n == 1 else k}" for k, n in counts.items() if n is not None)
    return printable(
        f"✓ {server.name}: {info.get('name', '?')} {info.get('version', '')} · protocol {server.protocol_version}"
        + (f" · {shown}" if shown else "")
    )


def _protocol_line(server: Server) -> str | None:
    """``2026-07-28 (modern, stateless)`` or ``2025-11-25 (legacy session)``; before a
    connect, the setting when it is not auto."""
    version = server.protocol_version
    if version is None:
        return None if server.config.protocol == "auto" else server.config.protocol
    return f"{version} ({'modern, stateless' if is_modern(version) else 'legacy session'})"


def _era_choice(server: Server) -> str | None:
    """How the era was chosen: the pin, or under auto what the probe heard (a server that
    spoke legacy before, or one on legacy SSE, is not probed)."""
    pinned = server.config.protocol
    if pinned != "auto":
        return f"pinned: {pinned}"
    note = server.era_note
    if note is None or not note.startswith("legacy asked"):
        return note
    if server.transport_name == "sse":
        return "legacy HTTP+SSE (it has no modern form): no probe"
    return "spoke legacy at the last connect: not probed again"


class ServerStatus:
    """What ``%mcp status`` shows: the facts about one connection."""

    def __init__(self, server: Server) -> None:
        self.server = server
        config = server.config
        self.facts = {
            "name": server.name,
            "status": server.status.value,
            "error": server.error,
            "source": config.source,
            "transport": config.transport,
            "target": config.describe(),  # python → /venv/bin/python -m … when resolved
            "login": config.login(),
            "startup_timeout": config.startup_timeout if server.startup_timeout is None else server.startup_timeout,
            "request_timeout": config.request_timeout,  # only when the config sets its own
            "tools_used": _tool_lists(config.enabled_tools, config.disabled_tools),
            "max_concurrency": _slots_line(server.connection.slots),
            "pid": server.pid,
            "server": server.server_info.get("name"),
            "title": server.server_info.get("title"),
            "version": server.server_info.get("version"),
            "protocol": _protocol_line(server),
            "chosen": _era_choice(server),
        }
        self.capabilities = server.capabilities
        self.instructions = server.instructions

    def __repr__(self) -> str:
        lines = [f"{k:15} {v}" for k, v in self.facts.items() if v is not None]
        lines.append(f"{'capabilities':15} {json.dumps(self.capabilities)}")
        if self.instructions:
            lines += ["instructions:", self.instructions]
        return printable("\n".join(lines))

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th style='text-align:left'>{escape(k)}</th><td style='text-align:left'>{escape(str(v))}</td></tr>"
            for k, v in self.facts.items()
            if v is not None
        )
        caps = escape(_json(self.capabilities))
        out = f"<table>{rows}</table><details><summary>capabilities</summary><pre style='{_PRE}'>{caps}</pre></details>"
        if self.instructions:
            out += (
                f"<details><summary>instructions</summary><pre style='{_PRE}'>"
                f"{escape(self.instructions)}</pre></details>"
            )
        return out


def _tool_lists(enabled: list[str] | None, disabled: list[str]) -> str | None:
    only = [f"only {', '.join(enabled)}"] if enabled is not None else []
    return "; ".join(only + ([f"not {', '.join(disabled)}"] if disabled else [])) or None


def _slots_line(slots: Any) -> str | None:
    if slots is None:
        return None
    return f"{slots.limit} ({slots.in_flight} in flight, {slots.waiting} waiting)"


class ServerLogs:
    """What ``%mcp logs`` shows: the server's stderr and its log notifications."""

    def __init__(self, server: Server, lines: int = 200) -> None:
        self.name = server.name
        self.stderr = server.stderr.splitlines()[-lines:]
        self.messages = server.logs[-lines:]
        self.diagnostics = server.diagnostics[-lines:]

    def _message_lines(self) -> list[str]:
        out = []
        for m in self.messages:
            data = m.get("data")
            text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
            out.append(f"[{m.get('level', '?')}]{' ' + m['logger'] + ':' if m.get('logger') else ''} {text}")
        return out

    def __repr__(self) -> str:
        parts = [f"stderr of {self.name} ({len(self.stderr)} lines):", *self.stderr]
        parts += [f"log messages ({len(self.messages)}):", *self._message_lines()]
        if self.diagnostics:
            parts += ["skipped output and protocol notes:", *self.diagnostics]
        return printable("\n".join(parts))

    def _repr_html_(self) -> str:
        def section(title: str, lines: list[str]) -> str:
            body = escape("\n".join(lines)) or "(none)"
            return f"<div><b>{escape(title)}</b><pre style='{_PRE}'>{body}</pre></div>"

        out = section(f"stderr ({len(self.stderr)} lines)", self.stderr)
        out += section(f"log messages ({len(self.messages)})", self._message_lines())
        if self.diagnostics:
            out += section("skipped output and protocol notes", self.diagnostics)
        return out


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
