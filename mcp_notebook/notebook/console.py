"""Asking with input(), for terminal IPython and kernels where a waiting cell cannot
receive widget clicks (input() works in JupyterLab, Notebook, VS Code and Colab): a line
typed in answer, an elicitation's form field by field, the wait for a login's paste (each
kind of question says what it asks: questions.py). The text progress line a terminal shows
instead of a progress bar is runtime/asking/textprogress.py's ``ProgressLine`` (plain Python shows it too).

What a server sent is printed through ``printable`` (core/safety/text.py): a terminal must not
obey its escape sequences; and through ``places.cell_text``: in a kernel it is stream output,
where JupyterLab would make links of the addresses the link policy refuses."""

from __future__ import annotations

from typing import Any

from IPython import get_ipython

from ..core.safety.text import printable
from ..runtime.asking.terminal import Wake, ask_login, read_line
from ..runtime.asking.textprogress import ProgressLine
from .places import cell_text

__all__ = ["ProgressLine", "form", "in_terminal", "login", "read_answer"]


def in_terminal() -> bool:
    """Terminal IPython (or plain Python): no kernel, so stdin and stdout are the terminal's."""
    return getattr(get_ipython(), "kernel", None) is None


def read_answer(prompt: str) -> str:
    """A line typed in answer (``StdinEnded`` at end of input)."""
    return read_line(prompt) or ""


def login(question: Any) -> str | None:
    """Print the authorization URL; the browser's return lands on the listener, or the
    person pastes the address it landed on (a remote machine). On a terminal the wait
    ends by itself when the browser comes back (or the login ends), leaving stdin alone;
    a kernel's input() cannot be woken: there the person presses Enter."""
    if not in_terminal():
        return ask_login(question.params, None)
    with Wake() as wake:
        question.answer.add_done_callback(lambda _: wake.set())  # answered: the browser came back
        return ask_login(question.params, wake)


def form(server: str, params: dict[str, Any]) -> dict[str, Any]:
    """An elicitation's form, field by field (questions.py asks it)."""
    print(cell_text(printable(f"{server} asks: {params.get('message', '')}")))
    answer = read_answer("Accept / Decline / Cancel? [a/d/c] ").strip().lower()
    if answer[:1] != "a":
        return {"action": "decline" if answer[:1] == "d" else "cancel"}
    schema = params.get("requestedSchema") or {}
    required = set(schema.get("required") or [])
    content: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        label = printable(str(prop.get("title") or name))
        default = prop.get("default")
        choices = prop.get("enum") or [o.get("const") for o in prop.get("oneOf", []) if "const" in o]
        hint = f" ({'/'.join(map(str, choices))})" if choices else ""
        hint = printable(hint + (f" [{default}]" if default is not None else ""))
        while True:
            raw = read_answer(printable(f"  {label}{' *' if name in required else ''}{hint}: ")).strip()
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
                print(cell_text(printable(f"    {e}")))  # it may quote the schema's choices
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
