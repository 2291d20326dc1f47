"""A subcommand's value as the command line prints it: ``text`` (tables aligned, results as
terminal IPython shows them), ``json``, ``csv`` or ``markdown``.

What a server sent is data: text has its control characters shown as escapes, JSON escapes
them as ``\\uXXXX`` (still the same JSON), and CSV (for files and pipes) is escaped only when
it goes to a terminal. Markdown shows it as text: a table's cells escaped, other text in a
code block, so that no raw HTML and no link but an https: (or local http:) one comes of it.
pandas is imported only where a value is a table.

Nothing is cut for a file or a pipe. On a terminal a long result (a call's, a prompt's) is
cut where a notebook's display would be, and ``Output.cut`` says so (the command writes it
to stderr, with its own exit status); a read's value is the data, never cut, and to a file
or pipe its one item is written as its bytes (``read … > data.csv`` is the resource).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from ..commands import display
from ..commands.display import Budget, call_result_text, prompt_result_text, read_result_text
from ..commands.serverdisplay import ServerLogs, ServerStatus
from ..core.safety.links import unlinked
from ..core.safety.text import printable
from ..core.types import CallResult, PromptResult, ReadResult
from ..errors import CONTROL, ArgumentError
from ..runtime.skills import SkillDocument
from . import exits

__all__ = ["FORMATS", "Output", "output"]

FORMATS = ("text", "json", "csv", "markdown")


@dataclass
class Output:
    """What a subcommand prints on stdout: ``text``, or ``data`` (bytes, written as they are:
    a read's resource); ``cut``: on a terminal, why less than the whole value shows (None:
    all of it shows); ``note``: another line for stderr."""

    text: str = ""
    data: bytes | None = None
    cut: str | None = None
    note: str | None = None


def output(value: Any, fmt: str, *, terminal: bool) -> Output | None:
    """What to print for ``value`` (None: nothing): whole for a file or pipe (``terminal``
    False), and for a read anywhere; cut on a terminal where a notebook's display would be."""
    if value is None:
        return None
    if fmt == "text" and isinstance(value, ReadResult) and len(value.contents) == 1:
        blob = "blob" in value.contents[0]
        if not terminal:
            try:
                return Output(data=value.bytes)  # the resource itself, byte for byte
            except ValueError:  # a blob that is not base64, text that is not Unicode: its text
                pass
        elif blob:
            note = "note: the resource is binary; redirect stdout to a file (> FILE) for its bytes"
            return Output(_ended(printable(_text(value, Budget(None)))), note=note)
    budget = Budget(display.options.max_tokens * 4 if terminal and not isinstance(value, ReadResult) else None)
    if fmt == "json":
        text = _json(_data(value))
    elif fmt == "csv":
        text = _frame(value).to_csv(index=False)
        text = printable(text) if terminal else text
    elif fmt == "markdown":
        text = _markdown(value, budget, terminal)
    else:
        text = printable(_text(value, budget, terminal))
    cut = None
    if budget.cut:
        tokens = display.options.max_tokens
        cut = (
            f"output cut on this terminal at about {tokens:,} tokens (the value is longer): redirect stdout to "
            f"a file or pipe for all of it (exit status {exits.CUT})"
        )
    return Output(_ended(text), cut=cut)


def _ended(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _is_frame(value: Any) -> bool:
    return type(value).__name__ == "DataFrame" and hasattr(value, "to_csv")


def _text(value: Any, budget: Budget, terminal: bool = False) -> str:
    if _is_frame(value):
        if value.empty:
            return "(none)" if not len(value.columns) else "(none: " + ", ".join(map(str, value.columns)) + ")"
        shown = value.astype(object).where(value.notna(), "")  # NaN, NA and NaT: blank
        # A terminal's columns stay readable (a long cell ends in "..."); a file's are whole.
        return str(shown.to_string(index=False, max_colwidth=80 if terminal else None))
    if isinstance(value, CallResult):
        return call_result_text(value, budget)
    if isinstance(value, ReadResult):
        return read_result_text(value, budget)
    if isinstance(value, PromptResult):
        return prompt_result_text(value, budget)
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


def _markdown(value: Any, budget: Budget, terminal: bool) -> str:
    if _is_frame(value):
        return _markdown_table(value)
    if isinstance(value, CallResult | ReadResult):
        try:
            return _markdown_table(value.to_frame())
        except ValueError:  # no table in it: its text
            pass
    text = value.text if isinstance(value, SkillDocument) else _text(value, budget, terminal)
    return _code_block(printable(text))


def _code_block(text: str) -> str:
    """``text`` as a fenced code block: shown as written, no markup or link made of it (the
    fence longer than any run of backticks in it)."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{_ended(text)}{fence}"


# Markdown's punctuation that could start markup (emphasis, a link, code, a table cell): shown
# as itself with a backslash (an _ inside a word starts nothing: read_only stays as it is);
# < > & as HTML's entities (no raw HTML comes through).
_MARKUP = re.compile(r"([\\`*\[\]|~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _markdown_text(text: str) -> str:
    """A server's text for a Markdown table's cell: as text, on one line; an address stays
    one a renderer may link only if it is https: (or http: on this machine), any other is
    shown broken, never a link (core/safety/links.py ``unlinked``: ``http[:]//…``)."""
    return _escaped(unlinked(printable(text).replace("\r", " ").replace("\n", " ")))


def _escaped(text: str) -> str:
    text = _MARKUP.sub(r"\\\1", text)
    return re.sub("[&<>]", lambda m: _ENTITIES[m.group()], text)


def _markdown_table(frame: Any) -> str:
    def cell(item: Any) -> str:
        return _markdown_text("" if item is None else str(item))

    head = [cell(c) for c in frame.columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    shown = frame.astype(object).where(frame.notna(), None)  # NaN, NA and NaT: empty cells
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in shown.itertuples(index=False)]
    return "\n".join(lines)
