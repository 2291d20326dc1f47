"""A minimal raw JSON-RPC stdio server (no SDK) serving one generated table as resources,
for the big-resource tests and bench/bench_resource.py.

    python tests/servers/tables_raw.py [MEGABYTES]

``table://data.csv`` (text/csv, about MEGABYTES of CSV text), ``table://data.parquet``
(the same rows as a base64 Parquet blob, when pyarrow is installed), ``table://data.xlsx``
(the first 50 rows as a base64 Excel blob, when openpyxl is installed) and
``table://small.csv`` (the first 3 rows). Each answer is made once and written as bytes,
so the server costs next to nothing per read.
"""

from __future__ import annotations

import base64
import io
import json
import sys

MEGABYTES = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
ROW = "{i},{x:.3f},name {i},{flag},2026-01-{day:02d}\n"  # about 40 bytes a row


def table_csv(megabytes: float) -> str:
    rows = ["id,x,name,flag,day\n"]
    size, i = len(rows[0]), 0
    while size < megabytes * 2**20:
        row = ROW.format(i=i, x=i * 0.5, flag=i % 2 == 0, day=i % 28 + 1)
        rows.append(row)
        size += len(row)
        i += 1
    return "".join(rows)


def blob(csv: str, kind: str) -> str | None:
    try:
        import pandas as pd

        frame = pd.read_csv(io.StringIO(csv), parse_dates=["day"])  # a Parquet file holds dates as dates
        out = io.BytesIO()
        if kind == "parquet":
            frame.to_parquet(out)
        else:
            frame.head(50).to_excel(out, index=False)
        return base64.b64encode(out.getvalue()).decode()
    except ImportError:
        return None


CSV = table_csv(MEGABYTES)
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CONTENTS = {
    "table://data.csv": {"mimeType": "text/csv", "text": CSV},
    "table://small.csv": {"mimeType": "text/csv", "text": "".join(CSV.splitlines(keepends=True)[:4])},
}
BLOBS = [("table://data.parquet", "application/vnd.apache.parquet", "parquet"), ("table://data.xlsx", XLSX, "xlsx")]
for uri, mime, kind in BLOBS:
    data = blob(CSV, kind)
    if data is not None:
        CONTENTS[uri] = {"mimeType": mime, "blob": data}
# Each read's answer as bytes after its id: made once.
ANSWERS = {
    uri: (',"result":' + json.dumps({"contents": [{"uri": uri, **content}]}) + "}\n").encode()
    for uri, content in CONTENTS.items()
}
RESOURCES = [{"uri": uri, "name": uri.split("/")[-1], "mimeType": c["mimeType"]} for uri, c in CONTENTS.items()]


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
        if rid is None:
            continue  # a notification
        head = b'{"jsonrpc":"2.0","id":' + json.dumps(rid).encode()
        if method == "resources/read" and params.get("uri") in ANSWERS:
            out.write(head + ANSWERS[params["uri"]])
        else:
            if method == "initialize":
                result = {
                    "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                    "capabilities": {"resources": {}},
                    "serverInfo": {"name": "tables-raw", "version": "1"},
                }
                body = {"result": result}
            elif method == "resources/list":
                body = {"result": {"resources": RESOURCES}}
            elif method == "ping":
                body = {"result": {}}
            else:
                body = {"error": {"code": -32602 if method == "resources/read" else -32601, "message": f"no {method}"}}
            out.write(head + b"," + json.dumps(body)[1:].encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
