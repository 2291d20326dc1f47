"""Asking with input(), for terminal IPython and kernels where a waiting cell cannot
receive widget clicks (input() works in JupyterLab, Notebook, VS Code and Colab): a line
typed in answer, an elicitation's form field by field, the wait for a login's paste (each
kind of question says what it asks: questions.py). Also the text progress line a terminal
shows instead of a progress bar.

What a server sent is printed through ``printable`` (core/text.py): a terminal must not
obey its escape sequences."""

from __future__ import annotations

import math
import shutil
import sys
import time
from typing import Any, TextIO

from IPython import get_ipython

from ..core.text import printable
from ..runtime.terminal import Wake, ask_login, read_line

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
    print(printable(f"{server} asks: {params.get('message', '')}"))
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


class ProgressLine:
    """A call's progress on a terminal, instead of a progress bar: ``[demo.fit_model] 40%
    (4/10) epoch 4/10``. On a terminal it is one line redrawn in place, a few times a
    second at most (a server may send thousands of updates); elsewhere (output to a file
    or a pipe) the first update and the last, two lines."""

    every = 0.2  # seconds between redraws

    def __init__(self, server: str, tool: str, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        try:
            self.tty = self.stream.isatty()
        except (AttributeError, ValueError, OSError):
            self.tty = False
        self.prefix = printable(f"[{server}.{tool}]").replace("\n", " ")
        self.text = self.prefix
        self.shown = ""  # what the terminal shows now (on a terminal), or the last line printed
        self.updates = 0
        self.last = 0.0
        self.finished = False

    def update(self, progress: float, total: float | None, message: str | None) -> None:
        if total:
            shown = f" {100 * min(progress / total, 1):.0f}% ({progress:g}/{total:g})"
        else:
            shown = "" if math.isnan(progress) else f" {progress:g}"  # NaN: a status (a task's), no count
        tail = " " + " ".join(printable(message).split()) if message else ""
        self.text = f"{self.prefix}{shown}{tail}"
        self.updates += 1
        now = time.monotonic()
        if self.updates == 1 or (self.tty and now - self.last >= self.every):
            self.last = now
            self._draw()

    def _draw(self) -> None:
        if not self.tty:
            self.stream.write(self.text + "\n")
            self.shown = self.text
        else:
            # One screen line at most: a wrapped line cannot be redrawn with \r.
            width = max(shutil.get_terminal_size().columns - 1, 20)
            text = self.text[:width]
            self.stream.write("\r" + text + " " * max(len(self.shown) - len(text), 0))
            self.shown = text
        self.stream.flush()

    def clear(self) -> None:
        """Take the line off the screen (a log line is printed in its place)."""
        if self.tty and self.shown:
            self.stream.write("\r" + " " * len(self.shown) + "\r")
            self.stream.flush()
            self.shown = ""

    def redraw(self) -> None:
        if self.tty and self.updates and not self.finished:
            self._draw()

    def finish(self, note: str) -> None:
        if self.finished:
            return
        self.finished = True
        if note != "done":
            self.text += f" ({note})"
        if self.text != self.shown:
            self._draw()
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def __repr__(self) -> str:
        return f"<ProgressLine {self.text!r}>"
