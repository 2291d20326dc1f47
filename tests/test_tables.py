"""to_frame() for every resource format and result shape a data scientist meets."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import pandas as pd
import pytest

from mcp_notebook import CallResult, ReadResult


def resource(uri: str, mime: str | None, text: str | None = None, blob: bytes | None = None) -> ReadResult:
    item: dict = {"uri": uri}
    if mime:
        item["mimeType"] = mime
    if text is not None:
        item["text"] = text
    if blob is not None:
        item["blob"] = base64.b64encode(blob).decode()
    return ReadResult.from_raw("s", uri, {"contents": [item]})


RECORDS = [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]


@pytest.mark.parametrize(
    ("uri", "mime", "text"),
    [
        ("r://t.csv", "text/csv", "a,b\n1,x\n2,y\n"),
        ("r://t", "text/tab-separated-values", "a\tb\n1\tx\n2\ty\n"),
        ("r://t", "application/json", json.dumps(RECORDS)),
        ("r://t", "application/json", json.dumps({"count": 2, "items": RECORDS})),
        ("r://t", "application/x-ndjson", "\n".join(json.dumps(r) for r in RECORDS)),
        ("r://t.jsonl", None, "\n".join(json.dumps(r) for r in RECORDS)),
        ("r://t.csv", "text/plain", "a,b\n1,x\n2,y\n"),  # a vague type: the suffix decides
    ],
)
def test_text_formats(uri: str, mime: str | None, text: str) -> None:
    frame = resource(uri, mime, text=text).to_frame()
    assert frame.to_dict("records") == RECORDS


def test_csv_as_blob() -> None:
    assert resource("r://t.csv", "text/csv", blob=b"a,b\n1,x\n2,y\n").to_frame().to_dict("records") == RECORDS


def test_parquet() -> None:
    pytest.importorskip("pyarrow")  # the [test] extras have it; without it see the next test
    import io

    buffer = io.BytesIO()
    pd.DataFrame(RECORDS).to_parquet(buffer)
    frame = resource("r://t", "application/vnd.apache.parquet", blob=buffer.getvalue()).to_frame()
    assert frame.to_dict("records") == RECORDS


def test_parquet_without_pyarrow_is_one_line_naming_it() -> None:
    # A fresh interpreter where importing pyarrow fails, as if it were not installed.
    script = (
        "import sys; sys.modules['pyarrow'] = None; sys.modules['fastparquet'] = None\n"
        "from mcp_notebook import ReadResult\n"
        "item = {'uri': 'r://t.parquet', 'mimeType': 'application/vnd.apache.parquet', 'blob': 'UEFSMQ=='}\n"
        "try:\n"
        "    ReadResult.from_raw('s', 'r://t.parquet', {'contents': [item]}).to_frame()\n"
        "except ValueError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out == "reading r://t.parquet (application/vnd.apache.parquet) needs pyarrow: pip install pyarrow\n"


def test_unreadable_type_says_what_it_reads() -> None:
    with pytest.raises(ValueError, match=r"is image/png; to_frame\(\) reads CSV, TSV, JSON records"):
        resource("r://x", "image/png", blob=b"\x89PNG").to_frame()
    with pytest.raises(ValueError, match="not a list of records"):
        resource("r://x", "application/json", text="42").to_frame()


def call(structured: object = None, text: str | None = None) -> CallResult:
    raw: dict = {"content": [{"type": "text", "text": text}] if text is not None else []}
    if structured is not None:
        raw["structuredContent"] = structured
    return CallResult.from_raw("s", "t", raw)


def test_call_result_frames() -> None:
    assert call(structured={"result": RECORDS}).to_frame().to_dict("records") == RECORDS
    assert call(structured={"count": 2, "rows": RECORDS}).to_frame().to_dict("records") == RECORDS
    assert call(structured={"temperature": 21.5, "unit": "C"}).to_frame().shape == (1, 2)
    assert call(text=json.dumps(RECORDS)).to_frame().to_dict("records") == RECORDS
    with pytest.raises(ValueError, match=r"holds no table.*use \.content or \.text"):
        call(text="just words").to_frame()
