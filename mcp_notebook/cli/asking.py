"""How the command line asks a person and shows what goes on, all on stderr:
ConsoleInteraction (approval and logins on the terminal, the headless policy without one),
a login's page opened in the browser, a call's progress, and a server's log messages."""

from __future__ import annotations

import json
import os
import shlex
import sys
import threading
import time
import webbrowser
from typing import Any

from ..core.auth.oauth import LoginRequest
from ..core.safety.text import printable, shown_name
from ..runtime.asking import login
from ..runtime.asking.interaction import ApprovalRequest, ConsoleInteraction

__all__ = ["LineInteraction", "can_open_browser", "log_line"]

PROGRESS_EVERY = 0.5  # seconds between two progress lines of a call (its last always shows)


def can_open_browser() -> bool:
    """Whether a browser can be opened without taking over this terminal: a desktop, or a
    ``BROWSER`` set on purpose (on Linux without a display, webbrowser falls back to
    console browsers such as lynx, which would take the terminal the paste is typed in)."""
    if os.environ.get("BROWSER"):
        return True
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class BrowserPaste(login.TerminalPaste):
    """The terminal's login, with the authorization page opened in the browser once the
    loopback listener is up (on a thread: some browsers' commands wait for the page)."""

    async def ask(self, request: LoginRequest) -> str | None:
        threading.Thread(target=webbrowser.open, args=(request.url,), daemon=True).start()
        return await super().ask(request)


class LineInteraction(ConsoleInteraction):
    """``open_browser``: open the login page (``--no-browser``: only print its address)."""

    def __init__(self, *, open_browser: bool) -> None:
        super().__init__()
        self.open_browser = open_browser
        self._shown: dict[tuple[str, str], float] = {}  # when each call's progress last showed

    def progress(self, server: str, tool: str, progress: float, total: float | None, message: str | None) -> None:
        now = time.monotonic()
        done = total is not None and progress >= total
        if not done and now - self._shown.get((server, tool), -PROGRESS_EVERY) < PROGRESS_EVERY:
            return
        self._shown[(server, tool)] = now
        amount = f"{progress:g}/{total:g}" if total else f"{progress:g}"
        line = f"{server}.{shown_name(tool)}: {amount}{' ' + message if message else ''}"
        print(printable(line), file=sys.stderr, flush=True)

    def allow_how(self, request: ApprovalRequest) -> str:
        tool = request.shown  # a name with control characters shows escaped, never as another
        return (
            f'--allow {shlex.quote(tool)} on this command line, or "alwaysAllow": [{json.dumps(request.tool)}] '
            f"in the server's saved entry"
        )

    async def alogin(self, request: LoginRequest) -> str:
        paste = BrowserPaste() if self.open_browser and can_open_browser() else login.TerminalPaste()
        return await login.listen(request, paste)


def log_line(server: str, params: Any) -> str:
    """A server's log message (``notifications/message``) as one line for stderr."""
    params = params if isinstance(params, dict) else {}
    data = params.get("data")
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    logger = f" {params['logger']}:" if isinstance(params.get("logger"), str) else ""
    return printable(f"{server} [{params.get('level', '?')}]{logger} {text}")
