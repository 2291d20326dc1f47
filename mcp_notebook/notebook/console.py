"""The same questions as the cards, asked with input(): terminal IPython, and kernels
where a waiting cell cannot receive widget clicks (input() works in JupyterLab, Notebook,
VS Code and Colab).

What a server sent is printed through ``printable`` (core/text.py): a terminal must not
obey its escape sequences."""

from __future__ import annotations

import json
from typing import Any

from ..core.links import link_problem
from ..core.text import printable
from ..errors import RPCError


def _input(prompt: str) -> str:
    try:
        return input(prompt)
    except EOFError:  # stdin closed: nobody can answer
        return ""


def ask(question: Any, interaction: Any) -> Any:
    kind, server, params = question.kind, question.server, question.params
    if kind == "approval":
        print(printable(f"Approve {params.describe()} with arguments:"))
        print(printable(json.dumps(params.arguments, indent=2, ensure_ascii=False, default=str)))
        answer = _input("Approve / Always allow / Deny? [a/A/d] ").strip()
        return {"a": "approve", "approve": "approve", "A": "always", "always": "always"}.get(answer, "deny")
    if kind == "url":
        url = params.get("url", "")
        print(printable(f"{server} asks you to open a page: {params.get('message', '')}\n  {url}"))
        problem = link_problem(url)
        if problem is not None:  # nothing to open: only declining or cancelling make sense
            print(f"  ⚠ do not open it: {problem}")
            answer = _input("Decline / Cancel? [d/c] ").strip().lower()
            return {"action": "decline" if answer[:1] == "d" else "cancel"}
        answer = _input("Accept / Decline / Cancel? [a/d/c] ").strip().lower()
        return {"action": {"a": "accept", "d": "decline"}.get(answer[:1], "cancel")}
    if kind == "sampling":
        for message in params.get("messages") or []:
            content = message.get("content") or {}
            print(printable(f"[{message.get('role')}] {content.get('text', '')}"))
        draft, model = interaction._draft(params)
        prompt = f"{server} asks for a model reply (empty declines){f' [{draft}]' if draft else ''}: "
        reply = _input(printable(prompt)) or draft
        if not reply:
            raise RPCError(-1, "the user declined the sampling request")
        return {
            "role": "assistant",
            "content": {"type": "text", "text": reply},
            "model": model,
            "stopReason": "endTurn",
        }
    if kind == "login":
        return login(params)
    return _elicit(server, params)


def login(request: Any) -> str | None:
    """Print the authorization URL; the browser's return lands on the listener, or the
    person pastes the address it landed on (a remote machine)."""
    print(printable(f"{request.server} needs you to log in at {request.issuer}. Open this address in a browser:"))
    print(printable(f"  {request.url}"))
    answer = _input("Then press Enter (or paste the address the browser landed on): ").strip()
    callback = request.callback
    landed = callback.result() if callback is not None else None
    return answer or landed


def _elicit(server: str, params: dict[str, Any]) -> dict[str, Any]:
    print(printable(f"{server} asks: {params.get('message', '')}"))
    answer = _input("Accept / Decline / Cancel? [a/d/c] ").strip().lower()
    if answer[:1] != "a":
        return {"action": "decline" if answer[:1] == "d" else "cancel"}
    schema = params.get("requestedSchema") or {}
    required = set(schema.get("required") or [])
    content: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        label = prop.get("title") or name
        default = prop.get("default")
        choices = prop.get("enum") or [o.get("const") for o in prop.get("oneOf", []) if "const" in o]
        hint = f" ({'/'.join(map(str, choices))})" if choices else ""
        hint += f" [{default}]" if default is not None else ""
        while True:
            raw = _input(printable(f"  {label}{' *' if name in required else ''}{hint}: ")).strip()
            if not raw:
                if default is not None:
                    content[name] = default
                    break
                if name not in required:
                    break
                print("    required")
                continue
            try:
                content[name] = _convert(raw, prop)
                break
            except ValueError as e:
                print(printable(f"    {e}"))
    return {"action": "accept", "content": content}


def _convert(raw: str, prop: dict[str, Any]) -> Any:
    kind = prop.get("type")
    if kind == "integer":
        return int(raw)
    if kind == "number":
        return float(raw)
    if kind == "boolean":
        if raw.lower() in ("y", "yes", "true", "1"):
            return True
        if raw.lower() in ("n", "no", "false", "0"):
            return False
        raise ValueError("answer yes or no")
    if kind == "array":
        return [part.strip() for part in raw.split(",") if part.strip()]
    choices = prop.get("enum")
    if choices and raw not in choices:
        raise ValueError(f"one of {', '.join(map(str, choices))}")
    return raw
