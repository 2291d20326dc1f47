"""How a server looks: the line about it once it is added or started (``summary_line``),
``%mcp status`` (``ServerStatus``: the facts about its connection) and ``%mcp logs``
(``ServerLogs``: its stderr and log messages), as text and HTML.

What the server sent is untrusted: HTML escapes it and text shows its control characters
as escapes (core/safety/text.py). How results look is display.py's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..core.protocol.era import is_modern
from ..core.safety.text import escape, printable
from ..core.types import Status
from ..runtime import Server
from .display import PRE_STYLE

__all__ = ["ServerLogs", "ServerStatus", "as_said", "summary_line"]


def as_said(text: str) -> str:
    """A server's words as they are: the default, and the command line's."""
    return text


def summary_line(server: Server, counts: dict[str, int | None], said: Callable[[str], str] = as_said) -> str:
    """One line about a server: ✓ name: server version · protocol · counts. ``said``: how
    what the server sent (its error, its name and version) shows in it (Context.server_text)."""
    if server.error:
        return printable(f"✗ {server.name}: ") + said(printable(server.error))
    if server.status is Status.DISABLED:
        return f"○ {server.name}: disabled ({server.config.source}); %mcp restart {server.name} connects it"
    info = server.server_info
    shown = ", ".join(f"{n} {k[:-1] if n == 1 else k}" for k, n in counts.items() if n is not None)
    named = said(printable(f"{info.get('name', '?')} {info.get('version', '')}"))
    rest = f" · protocol {server.protocol_version}" + (f" · {shown}" if shown else "")
    return printable(f"✓ {server.name}: ") + named + printable(rest)


def _protocol_line(server: Server) -> str | None:
    """``2026-07-28 (modern, stateless)`` or ``2025-11-25 (legacy session)``; before a
    connect, the setting when it is not auto."""
    version = server.protocol_version
    if version is None:
        return None if server.config.protocol == "auto" else server.config.protocol
    return f"{version} ({'modern, stateless' if is_modern(version) else 'legacy session'})"


def _era_choice(server: Server) -> str | None:
    """How the era was chosen: the pin, or under auto what the probe heard (a server that
    spoke legacy before, or one on legacy SSE, is not probed)."""
    pinned = server.config.protocol
    if pinned != "auto":
        return f"pinned: {pinned}"
    note = server.era_note
    if note is None or not note.startswith("legacy asked"):
        return note
    if server.transport_name == "sse":
        return "legacy HTTP+SSE (it has no modern form): no probe"
    return "spoke legacy at the last connect: not probed again"


class ServerStatus:
    """What ``%mcp status`` shows: the facts about one connection."""

    def __init__(self, server: Server) -> None:
        self.server = server
        config = server.config
        self.facts = {
            "name": server.name,
            "status": server.status.value,
            "error": server.error,
            "source": config.source,
            "transport": config.transport,
            "target": config.describe(),  # python → /venv/bin/python -m … when resolved
            "login": config.login(),
            "startup_timeout": config.startup_timeout if server.startup_timeout is None else server.startup_timeout,
            "request_timeout": config.request_timeout,  # only when the config sets its own
            "tools_used": _tool_lists(config.enabled_tools, config.disabled_tools),
            "allowed_tools": _allowed_line(config.allowed_tools),
            "max_concurrency": _slots_line(server.connection.slots),
            "pid": server.pid,
            "server": server.server_info.get("name"),
            "title": server.server_info.get("title"),
            "version": server.server_info.get("version"),
            "protocol": _protocol_line(server),
            "chosen": _era_choice(server),
        }
        self.capabilities = server.capabilities
        self.instructions = server.instructions

    def __repr__(self) -> str:
        lines = [f"{k:15} {v}" for k, v in self.facts.items() if v is not None]
        lines.append(f"{'capabilities':15} {json.dumps(self.capabilities)}")
        if self.instructions:
            lines += ["instructions:", self.instructions]
        return printable("\n".join(lines))

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th style='text-align:left'>{escape(k)}</th><td style='text-align:left'>{escape(str(v))}</td></tr>"
            for k, v in self.facts.items()
            if v is not None
        )
        caps = escape(json.dumps(self.capabilities, indent=2, ensure_ascii=False, default=str))
        out = f"<table>{rows}</table><details><summary>capabilities</summary>"
        out += f"<pre style='{PRE_STYLE}'>{caps}</pre></details>"
        if self.instructions:
            out += (
                f"<details><summary>instructions</summary><pre style='{PRE_STYLE}'>"
                f"{escape(self.instructions)}</pre></details>"
            )
        return out


def _tool_lists(enabled: list[str] | None, disabled: list[str]) -> str | None:
    only = [f"only {', '.join(enabled)}"] if enabled is not None else []
    return "; ".join(only + ([f"not {', '.join(disabled)}"] if disabled else [])) or None


def _allowed_line(allowed: list[str]) -> str | None:
    """The config's ``alwaysAllow``: the tools that never ask."""
    return f"{', '.join(allowed)} (run without asking, though destructive)" if allowed else None


def _slots_line(slots: Any) -> str | None:
    if slots is None:
        return None
    return f"{slots.limit} ({slots.in_flight} in flight, {slots.waiting} waiting)"


class ServerLogs:
    """What ``%mcp logs`` shows: the server's stderr and its log notifications."""

    def __init__(self, server: Server, lines: int = 200) -> None:
        self.name = server.name
        self.stderr = server.stderr.splitlines()[-lines:]
        self.messages = server.logs[-lines:]
        self.diagnostics = server.diagnostics[-lines:]

    def _message_lines(self) -> list[str]:
        out = []
        for m in self.messages:
            data = m.get("data")
            text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
            out.append(f"[{m.get('level', '?')}]{' ' + m['logger'] + ':' if m.get('logger') else ''} {text}")
        return out

    def __repr__(self) -> str:
        parts = [f"stderr of {self.name} ({len(self.stderr)} lines):", *self.stderr]
        parts += [f"log messages ({len(self.messages)}):", *self._message_lines()]
        if self.diagnostics:
            parts += ["skipped output and protocol notes:", *self.diagnostics]
        return printable("\n".join(parts))

    def _repr_html_(self) -> str:
        def section(title: str, lines: list[str]) -> str:
            body = escape("\n".join(lines)) or "(none)"
            return f"<div><b>{escape(title)}</b><pre style='{PRE_STYLE}'>{body}</pre></div>"

        out = section(f"stderr ({len(self.stderr)} lines)", self.stderr)
        out += section(f"log messages ({len(self.messages)})", self._message_lines())
        if self.diagnostics:
            out += section("skipped output and protocol notes", self.diagnostics)
        return out
