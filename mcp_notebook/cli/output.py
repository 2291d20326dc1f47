"""A subcommand's value as the command line prints it: ``text`` (tables aligned, results as
terminal IPython shows them), ``json``, ``csv`` or ``markdown``.

What a server sent is data: text and Markdown have its control characters shown as escapes,
JSON escapes them as ``\\uXXXX`` (still the same JSON), and CSV (for files and pipes) is
escaped only when it goes to a terminal. pandas is imported only where a value is a table.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..commands.display import ServerLogs, ServerStatus, call_result_text, prompt_result_text, read_result_text
from ..core.safety.text import printable
from ..core.types import CallResult, PromptResult, ReadResult
from ..errors import CONTROL, ArgumentError
from ..runtime.skills import SkillDocument

__all__ = ["FORMATS", "render"]

FORMATS = ("text", "json", "csv", "markdown")


def render(value: Any, fmt: str, *, terminal: bool) -> str | None:
    """What to print for ``value`` (None: nothing), ending with a newline."""
    if value is None:
        return None
    if fmt == "json":
        text = _json(_data(value))
    elif fmt == "csv":
        text = _frame(value).to_csv(index=False)
        text = printable(text) if terminal else text
    elif fmt == "markdown":
        text = printable(_markdown(value))
    else:
        text = printable(_text(value))
    return text if text.endswith("\n") else text + "\n"


def _is_frame(value: Any) -> bool:
    return type(value).__name__ == "DataFrame" and hasattr(value, "to_csv")


def _text(value: Any) -> str:
    if _is_frame(value):
        if value.empty:
            return "(none)" if not len(value.columns) else "(none: " + ", ".join(map(str, value.columns)) + ")"
        shown = value.astype(object).where(value.notna(), "")  # NaN, NA and NaT: blank
        return str(shown.to_string(index=False, max_colwidth=80))
    if isinstance(value, CallResult):
        return call_result_text(value)
    if isinstance(value, ReadResult):
        return read_result_text(value)
    if isinstance(value, PromptResult):
        return prompt_result_text(value)
    if isinstance(value, SkillDocument):
        return value.text
    if isinstance(value, str):
        return value
    if isinstance(value, ServerStatus | ServerLogs):
        return repr(value)
    return (
        json.dumps(value, indent=2, ensure_ascii=False, default=str) if isinstance(value, dict | list) else str(value)
    )


def _data(value: Any) -> Any:
    """The value as JSON data: a table's records, a result as the server sent it."""
    if _is_frame(value):
        return json.loads(value.to_json(orient="records", date_format="iso", default_handler=str))
    if isinstance(value, CallResult | ReadResult | PromptResult):
        return value.raw
    if isinstance(value, ServerStatus):
        return {**value.facts, "capabilities": value.capabilities, "instructions": value.instructions}
    if isinstance(value, ServerLogs):
        return {"stderr": value.stderr, "messages": value.messages, "diagnostics": value.diagnostics}
    if isinstance(value, SkillDocument):
        return {"server": value.skill.server, "skill": value.skill.name, "text": value.text}
    return value


def _finite(data: Any) -> Any:
    """NaN and infinities (which a server's JSON may hold, as Python reads it) as null: what
    is printed stays JSON any reader takes."""
    if isinstance(data, float) and not math.isfinite(data):
        return None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_finite(v) for v in data]
    return data


def _json(data: Any) -> str:
    text = json.dumps(_finite(data), indent=2, ensure_ascii=False, default=str, allow_nan=False)
    # Control characters only ever stand inside JSON strings: as \\uXXXX they are the same JSON.
    return CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _frame(value: Any) -> Any:
    """A table: a listing, or the table in a result (one line if there is none)."""
    if _is_frame(value):
        return value
    if isinstance(value, CallResult | ReadResult):
        try:
            return value.to_frame()
        except ValueError as e:
            raise ArgumentError(f"--format csv: {e}; use --format json or text") from None
    raise ArgumentError(f"--format csv: this gives no table ({type(value).__name__}); use --format json or text")


def _markdown(value: Any) -> str:
    if _is_frame(value):
        return _markdown_table(value)
    if isinstance(value, CallResult | ReadResult):
        try:
            return _markdown_table(value.to_frame())
        except ValueError:  # no table in it: its text
            return _text(value)
    if isinstance(value, SkillDocument):
        return value.text
    return _text(value)


def _markdown_table(frame: Any) -> str:
    def cell(item: Any) -> str:
        text = "" if item is None else str(item)
        return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")

    head = [cell(c) for c in frame.columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    shown = frame.astype(object).where(frame.notna(), None)  # NaN, NA and NaT: empty cells
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in shown.itertuples(index=False)]
    return "\n".join(lines)
