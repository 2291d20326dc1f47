"""A deliberately misbehaving stdio MCP server: faults real servers do not produce on cue.

    python tests/servers/faulty.py MODE

Modes: ok, garbage, exit-mid-call, no-init, crash-at-start, bad-version, oversize, hang,
silent-before-init (answers no request before initialize, e.g. a server/discover probe),
discover-fails (answers server/discover with -32603 "database down", as a broken server might),
and version=YYYY-MM-DD (answers initialize with that protocol version).
Tool `wait` answers with its `answer` argument, or without one waits until cancelled (a
log message says so); `release` answers every `hang` call so far (late), then itself;
`ghost` sends a malformed answer to the next id first; `batched` answers in a batch;
`twice` answers twice (100 KB, then small); `stderr` writes its `text` to stderr as it is
(no newline added).
Every mode serves `echo` normally unless the mode breaks the handshake; `hang` never
answers (but at once, with a JSON-RPC error, when given `fail`). It reports what
it saw on stderr (e.g. "cancelled 5") so that tests can check the client's behaviour.
"""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
TOOLS = [
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}},
    {"name": "hang", "inputSchema": {"type": "object"}},
    {"name": "wait", "inputSchema": {"type": "object", "properties": {"answer": {"type": "string"}}}},
    {"name": "big", "inputSchema": {"type": "object", "properties": {"size": {"type": "integer"}}}},
    {"name": "big_tail", "inputSchema": {"type": "object", "properties": {"size": {"type": "integer"}}}},
    {"name": "die", "inputSchema": {"type": "object"}},
    {"name": "ask", "inputSchema": {"type": "object", "properties": {"method": {"type": "string"}}}},
    {"name": "ask_later", "inputSchema": {"type": "object"}},
    {"name": "needs_url", "inputSchema": {"type": "object"}},
    {"name": "cancel_ask", "inputSchema": {"type": "object"}},
    {"name": "release", "inputSchema": {"type": "object"}},
    {"name": "ghost", "inputSchema": {"type": "object"}},
    {"name": "batched", "inputSchema": {"type": "object"}},
    {"name": "twice", "inputSchema": {"type": "object"}},
    {"name": "stderr", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
]
_asked = 0
_hung: list = []  # ids of the hang calls not answered yet (see release)


def ask(method: str, params: dict | None = None, wait: bool = True) -> dict:
    """Send a request to the client and wait for its answer (or not)."""
    global _asked
    _asked += 1
    rid = f"s{_asked}"
    send({"jsonrpc": "2.0", "id": rid, "method": method, **({"params": params} if params else {})})
    if not wait:
        return {}
    for line in sys.stdin:
        reply = json.loads(line)
        if reply.get("id") == rid and "method" not in reply:
            return reply
    return {}


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def result(rid: object, value: dict) -> None:
    if MODE == "garbage":
        sys.stdout.write("Loading model weights... 100%\n\x1b[32mready\x1b[0m\n{not json\n[1, 2]\n")
    send({"jsonrpc": "2.0", "id": rid, "result": value})


def main() -> None:
    if MODE == "crash-at-start":
        log("fatal: MY_API_KEY is not set")
        sys.exit(2)
    log(f"faulty server starting in mode {MODE}")
    initialized = False
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if MODE == "silent-before-init" and not initialized and method != "initialize":
            log(f"ignoring {method} before initialize")
            continue
        if method is None and "id" in msg:
            log(f"reply to {msg['id']}: {json.dumps(msg.get('result', msg.get('error')))}")
        elif method == "initialize":
            initialized = True
            if MODE == "no-init":
                log("still booting...")
                continue
            version = "1999-01-01" if MODE == "bad-version" else params["protocolVersion"]
            if MODE.startswith("version="):
                version = MODE.split("=", 1)[1]
            result(
                rid,
                {
                    "protocolVersion": version,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "faulty", "version": "0"},
                },
            )
        elif method == "notifications/cancelled":
            log(f"cancelled {params.get('requestId')} ({params.get('reason')})")
        elif method == "tools/list":
            log("listing tools")
            result(rid, {"tools": TOOLS})
        elif method == "tools/call":
            name = params.get("name")
            if name == "echo":
                result(rid, {"content": [{"type": "text", "text": params["arguments"].get("message", "")}]})
            elif name == "wait" and "answer" in params.get("arguments", {}):
                result(rid, {"content": [{"type": "text", "text": params["arguments"]["answer"]}]})
            elif name == "wait":  # no answer: until cancelled, saying so (a cell shows log messages)
                log(f"hanging on request {rid}")
                message = {"level": "info", "data": f"waiting on request {rid} until cancelled"}
                send({"jsonrpc": "2.0", "method": "notifications/message", "params": message})
            elif name == "hang" and params.get("arguments", {}).get("fail"):  # a row that fails at once
                error = {"code": -32000, "message": str(params["arguments"]["fail"])}
                send({"jsonrpc": "2.0", "id": rid, "error": error})
            elif name == "ghost":  # a malformed answer (no "jsonrpc") to the next id, then its own
                send({"id": rid + 1, "result": {"content": [{"type": "text", "text": "GHOST"}]}})
                result(rid, {"content": [{"type": "text", "text": "ghost sent"}]})
            elif name == "stderr":
                sys.stderr.write(params["arguments"]["text"])
                sys.stderr.flush()
                result(rid, {"content": [{"type": "text", "text": "written"}]})
            elif name == "batched":  # its answer inside a JSON-RPC batch (2025-03-26)
                answer = {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "batched"}]}}
                sys.stdout.write(json.dumps([answer]) + "\n")
                sys.stdout.flush()
            elif name == "twice":  # a big answer, then a small second one under the same id
                first = {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "B" * 100_000}]}}
                again = {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "second"}]}}
                sys.stdout.write(json.dumps(first) + "\n" + json.dumps(again) + "\n")  # one write: read together
                sys.stdout.flush()
            elif name == "release":  # answer every hung call (late: its caller gave up), then this one
                for hung in _hung:
                    result(hung, {"content": [{"type": "text", "text": f"late answer to {hung}"}]})
                _hung.clear()
                result(rid, {"content": [{"type": "text", "text": "released"}]})
            elif name == "hang" or (MODE == "hang" and name != "echo"):
                log(f"hanging on request {rid}")
                _hung.append(rid)
            elif name == "die" or MODE == "exit-mid-call":
                log("segfault in tool handler (simulated)")
                sys.exit(3)
            elif name == "ask":
                reply = ask(params["arguments"]["method"])
                result(rid, {"content": [{"type": "text", "text": json.dumps(reply)}]})
            elif name == "needs_url":  # 2025-11-25: URL elicitation required first
                elicitation = {"mode": "url", "elicitationId": "e-1", "url": "https://auth.example/connect",
                               "message": "Connect your account"}  # fmt: skip
                error = {"code": -32042, "message": "URL elicitation required", "data": {"elicitations": [elicitation]}}
                send({"jsonrpc": "2.0", "id": rid, "error": error})
            elif name == "ask_later":  # ask, answer the call at once, read the reply later
                ask("elicitation/create", {"message": "never mind", "requestedSchema": {"type": "object"}}, wait=False)
                result(rid, {"content": [{"type": "text", "text": f"asked s{_asked}"}]})
            elif name == "cancel_ask":
                cancel = {"requestId": f"s{_asked}", "reason": "test"}
                send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})
                result(rid, {"content": [{"type": "text", "text": "cancelled it"}]})
            elif name in ("big", "big_tail"):
                size = params["arguments"].get("size", 2_000_000)
                content = {"content": [{"type": "text", "text": "x" * size}]}
                if name == "big":  # the id first, as Python SDKs write it
                    send({"jsonrpc": "2.0", "id": rid, "result": content})
                else:  # the id last, as the TypeScript SDK writes it
                    send({"result": content, "jsonrpc": "2.0", "id": rid})
        elif method == "server/discover" and MODE == "discover-fails":
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "database down"}})
        elif method == "ping":
            result(rid, {})
        elif method == "faulty/hang":  # a raw request never answered (a tool call may not be sent raw)
            log(f"hanging on request {rid}")
            _hung.append(rid)
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no method {method}"}})


if __name__ == "__main__":
    main()
