"""The history and a transcript as DataFrames (``%mcp history``, ``%mcp transcript``).

pandas is imported inside the functions (as in frames.py): a script that never looks at
its history never loads it. Everything a server sent stays data: pandas escapes it in the
HTML view.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

from ..safety.text import printable
from ..tables.frames import records_frame
from .calls import Call

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["HISTORY_COLUMNS", "TRANSCRIPT_COLUMNS", "calls_frame", "transcript_frame", "transcript_html"]

HISTORY_COLUMNS = [
    "time",
    "server",
    "method",
    "name",
    "arguments",
    "duration",
    "outcome",
    "bytes_out",
    "bytes_in",
]
TRANSCRIPT_COLUMNS = ["time", "direction", "kind", "id", "method", "summary", "bytes", "payload"]
PAYLOAD_CHARS = 2000  # of a payload's JSON text in a transcript row


def _times(frame: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    frame["time"] = pd.to_datetime(frame["time"], unit="s", utc=True)
    return frame


def calls_frame(calls: Iterable[Call]) -> pd.DataFrame:
    """One row per request, oldest first: arguments redacted and elided, duration in
    seconds (NaN while in flight), outcome ``ok``, ``cancelled`` or the error's text."""
    return _times(records_frame([c.row() for c in calls], HISTORY_COLUMNS))


def _json(payload: Any) -> str:
    text = printable(json.dumps(payload, ensure_ascii=False, default=repr))  # C1 and bidi controls too
    return text if len(text) <= PAYLOAD_CHARS else f"{text[:PAYLOAD_CHARS]}… ({len(text)} characters)"


def transcript_frame(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """One row per JSON-RPC message, both ways, in order: the payload as (redacted,
    elided) JSON text. Its HTML view shows each payload whole (folded), escaped."""
    shown = [{**row, "payload": _json(row["payload"])} for row in rows]
    frame = _times(records_frame(shown, TRANSCRIPT_COLUMNS))
    return _transcript_class()(frame)  # type: ignore[no-any-return]


def transcript_html(frame: pd.DataFrame) -> str:
    """The protocol view: a row per message, its payload folded under its summary; every
    value escaped (what the server sent is untrusted)."""

    def cell(value: Any) -> str:
        return "" if value is None or value != value else html.escape(printable(str(value)))  # NaN != NaN

    head = "".join(f"<th>{c}</th>" for c in ("time", "", "kind", "id", "method", "bytes", "message"))
    body = []
    for row in frame.itertuples(index=False):
        at: Any = row.time
        time = at.strftime("%H:%M:%S.%f")[:-3] if hasattr(at, "strftime") else cell(at)
        message = f"<details><summary>{cell(row.summary)}</summary><pre>{cell(row.payload)}</pre></details>"
        cells = (time, cell(row.direction), cell(row.kind), cell(row.id), cell(row.method), cell(row.bytes), message)
        body.append("<tr>" + "".join(f"<td style='text-align:left'>{c}</td>" for c in cells) + "</tr>")
    return f"<table class='mcp-transcript'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


@cache
def _transcript_class() -> type:
    """A DataFrame with the protocol view as its HTML (made once pandas is loaded); what
    is taken from it (rows, columns) is a plain DataFrame."""
    import pandas as pd

    class Transcript(pd.DataFrame):
        @property
        def _constructor(self) -> type:
            return pd.DataFrame

        def _repr_html_(self) -> str:
            return transcript_html(self)

    return Transcript
