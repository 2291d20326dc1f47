"""What the test servers share: a raw modern-era (2026-07-28) stdio server's JSON-RPC lines,
read and answered (listen_raw.py, mrtr_raw.py), and an SDK server run over stdio or
Streamable HTTP on loopback (sdk_modern.py, sdk_tasks.py)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

VERSION = "2026-07-28"
JSON = dict[str, Any]


def messages() -> Iterator[tuple[Any, Any, JSON]]:
    """Each message on stdin as (method, id, params); params ``{}`` when absent."""
    for line in sys.stdin:
        message = json.loads(line)
        yield message.get("method"), message.get("id"), message.get("params") or {}


def send(message: JSON) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def notify(method: str, params: JSON) -> None:
    send({"jsonrpc": "2.0", "method": method, "params": params})


def reply(rid: Any, result: JSON) -> None:
    send({"jsonrpc": "2.0", "id": rid, "result": result})


def fail(rid: Any, code: int, message: str, data: Any = None) -> None:
    error = {"code": code, "message": message} | ({} if data is None else {"data": data})
    send({"jsonrpc": "2.0", "id": rid, "error": error})


def no_such_method(rid: Any, method: Any) -> None:
    fail(rid, -32601, f"no {method}")


def discovered(name: str, capabilities: JSON) -> JSON:
    """The ``server/discover`` result of a server that speaks only 2026-07-28."""
    return {"supportedVersions": [VERSION], "capabilities": capabilities, "serverInfo": {"name": name, "version": "1"}}


def serve(server: Any, http_port: int | None) -> None:
    """Run an SDK server (``MCPServer``) over stdio, or over Streamable HTTP on 127.0.0.1."""
    if http_port is not None:
        server.run("streamable-http", host="127.0.0.1", port=http_port)
    else:
        server.run("stdio")
