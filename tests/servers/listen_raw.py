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

from serving import discovered, messages, no_such_method, notify, reply

TAG = "io.modelcontextprotocol/subscriptionId"
TOUCH = {"name": "touch", "inputSchema": {"type": "object", "properties": {
    "uri": {"type": "string"}, "untagged": {"type": "boolean"}}, "required": ["uri"]}}  # fmt: skip
listens: dict[object, list[str]] = {}  # open listen requests: id -> the URIs they name
held: list[object] = []  # the id of a listen not acknowledged yet (--hold-first)


def acknowledge(rid: object) -> None:
    params = {"_meta": {TAG: rid}, "notifications": {"resourceSubscriptions": listens[rid]}}
    notify("notifications/subscriptions/acknowledged", params)


def touch(params: dict) -> dict:
    uri = params.get("uri")
    if params.get("untagged"):
        notify("notifications/resources/updated", {"uri": uri})
        notify("notifications/tools/list_changed", {})
    for rid, uris in listens.items():
        if uri in uris:
            notify("notifications/resources/updated", {"uri": uri, "_meta": {TAG: rid}})
    return {"content": [{"type": "text", "text": json.dumps(sorted(map(str, listens)))}]}


def main() -> None:
    hold = "--hold-first" in sys.argv
    seen = 0
    for method, rid, params in messages():
        if method == "notifications/cancelled":
            listens.pop(params.get("requestId"), None)  # its reply is not sent: it was cancelled
            continue
        if rid is None:
            continue
        if method == "server/discover":
            result = discovered("listen-raw", {"tools": {}, "resources": {"subscribe": True}})
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
            no_such_method(rid, method)
            continue
        reply(rid, result)


if __name__ == "__main__":
    main()
