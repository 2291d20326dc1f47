"""A raw modern-era (2026-07-28) stdio server for subscriptions/listen, misbehaving on cue
as no real server does on demand.

    python tests/servers/listen_raw.py [--hold-first]

It offers resource subscriptions (no list changes: nothing is listened for until a URI is
subscribed). ``--hold-first``: the first ``subscriptions/listen`` is acknowledged only once
a second arrives, and after it (the order two concurrent subscribes can meet). Tool
``touch`` (uri, untagged): sends ``notifications/resources/updated`` for ``uri`` on every
open listen that names it, tagged with its id; with ``untagged`` first an untagged update
and an untagged ``notifications/tools/list_changed`` (which a modern server may not send).
"""

from __future__ import annotations

import json
import sys

VERSION = "2026-07-28"
TAG = "io.modelcontextprotocol/subscriptionId"
TOUCH = {"name": "touch", "inputSchema": {"type": "object", "properties": {
    "uri": {"type": "string"}, "untagged": {"type": "boolean"}}, "required": ["uri"]}}  # fmt: skip
listens: dict[object, list[str]] = {}  # open listen requests: id -> the URIs they name
held: list[object] = []  # the id of a listen not acknowledged yet (--hold-first)


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def acknowledge(rid: object) -> None:
    params = {"_meta": {TAG: rid}, "notifications": {"resourceSubscriptions": listens[rid]}}
    send({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": params})


def touch(params: dict) -> dict:
    uri = params.get("uri")
    if params.get("untagged"):
        send({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}})
    for rid, uris in listens.items():
        if uri in uris:
            updated = {"uri": uri, "_meta": {TAG: rid}}
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": updated})
    return {"content": [{"type": "text", "text": json.dumps(sorted(map(str, listens)))}]}


def main() -> None:
    hold = "--hold-first" in sys.argv
    seen = 0
    for line in sys.stdin:
        message = json.loads(line)
        method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
        if method == "notifications/cancelled":
            listens.pop(params.get("requestId"), None)  # its reply is not sent: it was cancelled
            continue
        if rid is None:
            continue
        if method == "server/discover":
            result = {"supportedVersions": [VERSION], "capabilities": {"tools": {}, "resources": {"subscribe": True}},
                      "serverInfo": {"name": "listen-raw", "version": "1"}}  # fmt: skip
        elif method == "subscriptions/listen":
            listens[rid] = list((params.get("notifications") or {}).get("resourceSubscriptions") or [])
            seen += 1
            if hold and seen == 1:
                held.append(rid)
                continue
            acknowledge(rid)
            for older in held:
                if older in listens:
                    acknowledge(older)  # after the newer one's
            held.clear()
            continue  # long-lived: answered only when it ends
        elif method == "tools/list":
            result = {"tools": [TOUCH]}
        elif method == "tools/call" and params.get("name") == "touch":
            result = touch(params.get("arguments") or {})
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no {method}"}})
            continue
        send({"jsonrpc": "2.0", "id": rid, "result": result})


if __name__ == "__main__":
    main()
