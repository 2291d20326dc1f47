"""A raw modern-era (2026-07-28) stdio server for input-required rounds: it records every
``tools/call`` it gets and misbehaves on cue, as no real server does.

    python tests/servers/mrtr_raw.py

Tools: ``forever`` answers input_required every time (with a fresh state); ``stateful``
asks once with a ``requestState`` full of awkward characters, then returns what came back;
``plain`` returns what its params carried (inputResponses/requestState must be absent);
``state_only`` first answers with a requestState and no inputRequests; ``needs_cap`` fails
with -32021 (elicitation); ``slow_ask`` asks once (its answer is held by the client's test);
``record`` returns every tools/call seen so far (id, name, params without _meta).

Review fixes (issue 14): ``resources/read`` of ``memo://asks`` asks "Name?" before each read
and then returns ``ttlMs`` 600000 (of ``memo://plain``: no question, the same hint);
``many_asks`` asks 1000 questions in one round; ``seen`` returns the clientCapabilities each
request's _meta carried (by method) and the ids of every ``notifications/cancelled``.
``--refuse CODE``: ``server/discover`` fails with CODE and ``initialize`` with -32022, both
with hostile text (escape sequences, newlines, 5000 characters) as message and versions.
"""

from __future__ import annotations

import json
import sys

from serving import discovered, fail, messages, no_such_method, reply

HOSTILE = "\x1b]52;c;ZXZpbA==\x07\x1b[2J" + "A" * 5000 + "\n$ fake prompt"
REFUSE = int(sys.argv[sys.argv.index("--refuse") + 1]) if "--refuse" in sys.argv else None
seen: dict[str, list] = {"capabilities": [], "cancelled": []}

STATE = 'ü"\\n\u2028 {"x": [1, 2.50]}  \t<b>&amp;</b> 🍣'  # JSON escapes, spaces, a number as text
TOOLS = [
    {"name": name, "inputSchema": {"type": "object"}}
    for name in ("forever", "stateful", "plain", "state_only", "needs_cap", "slow_ask", "record", "many_asks", "seen")
]
ASK = {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {
    "type": "object", "properties": {"name": {"type": "string", "default": "Ada"}}}}}  # fmt: skip
calls: list[dict] = []
rounds = 0


def input_required(**fields: object) -> dict:
    return {"resultType": "input_required", **fields}


def call(name: str, params: dict) -> dict:
    global rounds
    answers, state = params.get("inputResponses"), params.get("requestState")
    if name == "forever":
        rounds += 1
        return input_required(inputRequests={"again": ASK}, requestState=f"round {rounds}")
    if name == "stateful":
        if answers is None:
            return input_required(inputRequests={"who": ASK}, requestState=STATE)
        text = json.dumps({"echoed": state == STATE, "answers": answers})
        return {"resultType": "complete", "content": [{"type": "text", "text": text}]}
    if name == "state_only":
        if state is None:
            return input_required(requestState="wait")
        return {"content": [{"type": "text", "text": f"state came back: {state}"}]}
    if name == "slow_ask" and answers is None:
        return input_required(inputRequests={"who": ASK})
    if name == "many_asks":
        return input_required(inputRequests={f"q{i}": ASK for i in range(1000)})
    if name == "seen":
        return {"content": [{"type": "text", "text": json.dumps(seen)}]}
    if name == "record":
        return {"content": [{"type": "text", "text": json.dumps(calls)}]}
    text = json.dumps({k: params.get(k) for k in ("inputResponses", "requestState")})
    return {"resultType": "complete", "content": [{"type": "text", "text": text}]}


def main() -> None:
    for method, rid, params in messages():
        if rid is None:
            if method == "notifications/cancelled":
                seen["cancelled"].append(params.get("requestId"))
            continue
        meta = params.get("_meta") or {}
        seen["capabilities"].append([method, meta.get("io.modelcontextprotocol/clientCapabilities")])
        if REFUSE is not None and method in ("server/discover", "initialize"):
            code = REFUSE if method == "server/discover" else -32022
            data = {"supported": [HOSTILE, "9999-\x1b[31m-01\n"]}
            fail(rid, code, HOSTILE, data)
            continue
        if method == "resources/read":
            if params.get("uri") == "memo://asks" and "inputResponses" not in params:
                result = input_required(inputRequests={"who": ASK})
            else:
                text = json.dumps({"uri": params.get("uri"), "answers": params.get("inputResponses")})
                result = {"contents": [{"uri": params.get("uri"), "text": text}], "ttlMs": 600000}
            reply(rid, result)
            continue
        if method == "server/discover":
            result = discovered("mrtr-raw", {"tools": {}, "resources": {}})
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call":
            calls.append({"id": rid, "name": params.get("name"), **{k: v for k, v in params.items() if k != "_meta"}})
            if params.get("name") == "needs_cap":
                fail(rid, -32021, "Server requires the elicitation capability for this request",
                     {"requiredCapabilities": {"elicitation": {}}})  # fmt: skip
                continue
            result = call(params.get("name", ""), params)
        else:
            no_such_method(rid, method)
            continue
        reply(rid, result)


if __name__ == "__main__":
    main()
