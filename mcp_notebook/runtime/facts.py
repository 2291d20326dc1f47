"""What a server handle tells about its connection: read-only facts (its name, status,
what the server said of itself, its logs), apart from what it does (handle.py)."""

from __future__ import annotations

from typing import Any

from ..core.auth.oauth import OAuth
from ..core.config.servers import ServerConfig
from ..core.types import Status
from .connection import Connection

JSON = dict[str, Any]


class ServerFacts:
    """The facts ``Server`` shows, read from its ``connection``."""

    connection: Connection

    @property
    def name(self) -> str:
        return self.connection.name

    @property
    def config(self) -> ServerConfig:
        return self.connection.config

    @property
    def status(self) -> Status:
        return self.connection.status

    @property
    def error(self) -> str | None:
        """Why it failed (with status ``failed``), else None."""
        return self.connection.error

    @property
    def transport_name(self) -> str:
        """The transport in use: stdio, http or sse (``auto`` until it is resolved)."""
        return self.connection.transport_name

    @property
    def auth(self) -> OAuth | None:
        """OAuth for a remote server (made on its first connect)."""
        return self.connection.auth

    @property
    def startup_timeout(self) -> float | None:
        """This server's startup timeout, over the config's and the Settings' when set."""
        return self.connection.startup_timeout

    @startup_timeout.setter
    def startup_timeout(self, value: float | None) -> None:
        self.connection.startup_timeout = value

    @property
    def server_info(self) -> JSON:
        session = self.connection.session
        return session.server_info if session else {}

    @property
    def capabilities(self) -> JSON:
        session = self.connection.session
        return session.server_capabilities if session else {}

    @property
    def client_capabilities(self) -> JSON:
        """What this client declared to the server when it connected (fixed until it reconnects)."""
        session = self.connection.session
        return session.declared_capabilities if session else {}

    @property
    def instructions(self) -> str | None:
        session = self.connection.session
        return session.instructions if session else None

    @property
    def protocol_version(self) -> str | None:
        session = self.connection.session
        return session.protocol_version if session else None

    @property
    def era_note(self) -> str | None:
        """How the last connect chose the protocol era (what server/discover answered)."""
        session = self.connection.session
        return session.found.era_note if session else None

    @property
    def request_timeout(self) -> float | None:
        """The default for this server's requests: its config's, else the Settings'."""
        return self.connection.request_timeout

    @property
    def pid(self) -> int | None:
        transport = self.connection.transport
        return transport.pid if transport else None

    @property
    def stderr(self) -> str:
        """What the server wrote to stderr (the last 500 lines)."""
        transport = self.connection.transport
        return transport.stderr_text() if transport else ""

    @property
    def logs(self) -> list[JSON]:
        """``notifications/message`` params received, oldest first."""
        session = self.connection.session
        return list(session.logs) if session else []

    @property
    def diagnostics(self) -> list[str]:
        """Non-protocol lines on stdout and protocol oddities, for debugging a server."""
        transport, session = self.connection.transport, self.connection.session
        out: list[str] = list(transport.diagnostics) if transport else []
        if session:
            out.extend(session.diagnostics)
        return out

    @property
    def modern(self) -> bool:
        """Whether the connection speaks the modern (2026-07-28, stateless) era."""
        session = self.connection.session
        return bool(session and session.modern)


__all__ = ["ServerFacts"]
