"""Which servers a command line can name: those saved in the user, project and local scopes
(as ``%mcp load`` finds them) or in the file given with ``--config``, and the one given on
the line itself (a command after ``--``, or ``--url``). Each starts when a subcommand first
names it, and only then: ``mcp-notebook call demo.echo`` starts demo and nothing else."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from ..commands import Context
from ..commands.serverconfig import server_config
from ..commands.trusting import ask_trust
from ..core.config.scopes import Scopes, load_servers, looked_in, read_scopes
from ..core.config.servers import ServerConfig
from ..core.safety.text import printable
from ..errors import ArgumentError
from ..runtime import Client, Server
from .asking import log_line

__all__ = ["TRUST_HOW", "LineSource", "given_name"]

TRUST_HOW = "run with --trust to trust this folder's project files (or answer the prompt on a terminal)"


def given_name(words: list[str], url: str | None) -> str:
    """A name for the server given on the line, when no subcommand names it: the URL's
    host, or the command's package or script (``npx -y @scope/server-everything`` →
    ``server-everything``, ``python -m pkg.demo`` → ``demo``, ``python tools/x.py`` → ``x``)."""
    if url:
        return _safe(urlsplit(url).hostname or "") or "server"  # never the user:password part
    rest = words[1:]
    if "-m" in rest and rest.index("-m") + 1 < len(rest):
        return _safe(rest[rest.index("-m") + 1].rsplit(".", 1)[-1]) or "server"
    first = next((w for w in rest if not w.startswith("-")), words[0] if words else "")
    first = first.rstrip("/").rsplit("/", 1)[-1]  # @scope/package, a path
    first = re.sub(r"(?<=.)@[^@/]*$", "", first)  # package@version
    return _safe(re.sub(r"\.(py|js|mjs|cjs|ts)$", "", first)) or "server"


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-_")[:40]


class LineSource:
    """``commands.Source`` for the command line. ``given``: the words of ``%mcp add`` after
    its NAME for the server given on the line (``["--", "npx", …]`` or ``[URL, options…]``),
    bound to the first name a subcommand asks for that is not saved (or to
    ``given_name`` when it asks for every server). ``connect``: start each server as it is
    named (False: only register it, for login, logout and remove)."""

    def __init__(
        self,
        ctx: Context,
        given: list[str] | None,
        config_path: str | None,
        warn: Callable[[str], None],
        *,
        connect: bool = True,
    ) -> None:
        self.ctx = ctx
        self.connect = connect
        self.given = given
        self.config_path = config_path
        self.warn = warn
        self._saved: dict[str, ServerConfig] | None = None
        self._scopes: Scopes | None = None  # None: a --config file, which is used as it is
        self._asked = False
        self._given_as: str | None = None
        self.failed: list[str] = []  # saved servers that did not connect when all were asked for

    def __repr__(self) -> str:
        return f"<LineSource given={self._given_as!r}>"

    def saved(self) -> dict[str, ServerConfig]:
        """The servers that may start: a --config file's, or the scopes' (the project's once
        this folder is trusted)."""
        if self._saved is None:
            if self.config_path is not None:
                self._saved = load_servers(self.config_path)
            else:
                self._scopes = read_scopes()
                self._saved = dict(self._scopes.servers)
                for note in self._scopes.notes(None):
                    self.warn(f"⚠ {note}")
        return self._saved

    def untrusted(self) -> dict[str, ServerConfig]:
        """The project's servers this folder has not been trusted with: listed, never started."""
        self.saved()
        return {} if self._scopes is None or self._scopes.question is None else self._scopes.untrusted

    def _ask_trust(self, say: bool = True) -> None:
        """Once a run: ask the person at the terminal whether to trust this folder's project
        servers (else a line says how, if ``say``)."""
        scopes = self._scopes
        if self._asked or scopes is None or scopes.question is None:
            return
        self._asked = True

        def trusted(found: Scopes) -> list[str]:
            self._scopes, self._saved = found, dict(found.servers)
            return [f"⚠ {note}" for note in found.notes(None)]

        ask_trust(self.ctx, scopes.question, TRUST_HOW, trusted, say=say)

    def provide(self, client: Client, name: str | None) -> None:
        if name is None:
            self._provide_all(client)
            return
        if name in client:
            return
        if self.given is not None and self._given_as is None:
            # The server given on the line takes the first name asked for, saved or not:
            # it was given for this run (the saved files are then not read for it).
            self._start_given(client, name)
        else:
            if name in self.untrusted():
                self._ask_trust(say=name in self.saved())  # else the error below says it
            if name in self.saved():
                self._start(client, self.saved()[name])
            elif name in self.untrusted():
                raise ArgumentError(
                    f"server {name!r} is in ./.mcp.json, in a folder you have not trusted, so it was not started; "
                    + TRUST_HOW
                )

    def _provide_all(self, client: Client) -> None:
        if self.given is not None:
            if self._given_as is None:
                given = self.given
                command = given[given.index("--") + 1 :] if "--" in given else []
                self._start_given(client, given_name(command, None if command else given[0]))
            return
        if self.untrusted():
            self._ask_trust()
        if not self.saved() and not self.untrusted():
            self.warn(f"no saved servers; looked in {looked_in()}" if self.config_path is None
                      else f"{self.config_path}: no servers")  # fmt: skip
        missing = [c for n, c in self.saved().items() if n not in client]
        # Connected together (their log lines show from the end of the handshake on).
        for server in client.add_configs(missing, connect=self.connect):
            self._listen(server)
            if server.error:
                self.failed.append(server.name)
                self.warn(printable(f"✗ {server.name}: {server.error}"))

    @property
    def given_used(self) -> bool:
        return self._given_as is not None

    def _start_given(self, client: Client, name: str) -> None:
        try:
            config, _, _ = server_config(self.ctx, [name, *(self.given or [])])
        except ArgumentError as e:  # its options are %mcp add's, its mistakes this line's
            raise ArgumentError(f"the server given on the line: {str(e).removeprefix('%mcp add: ')}") from None
        self._given_as = name
        self._start(client, dataclasses.replace(config, source="command line"))

    def _start(self, client: Client, config: ServerConfig) -> None:
        """Add the server, its log messages shown on stderr from its first; then connect it
        (raising what stops it, for the exit status; a person may be asked to log in)."""
        server = client.add_config(config, connect=False)
        self._listen(server)
        if self.connect:
            server.connect()

    def _listen(self, server: Server) -> None:
        name = server.name

        def heard(method: str, params: Any) -> None:
            if method == "notifications/message":
                self.warn(log_line(name, params))

        server.on_notification(heard)
