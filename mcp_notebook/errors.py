"""The exception hierarchy.

    MCPError
    ├── ConfigError          a config file or server definition is wrong
    ├── ArgumentError        a wrong argument (to a call, a map, a prompt, or one of ours)
    │   └── InvalidArguments the arguments do not fit the tool's inputSchema: nothing was sent
    ├── UnknownServer        no server of that name is registered
    ├── UnknownTool          the server has no tool of that name
    ├── UnknownPrompt        the server has no prompt of that name
    ├── NotConnected         the server is not connected (failed, closed, connecting)
    ├── ToolDenied           a person (or the approval policy) said no; nothing was sent
    │   └── ToolExcluded     the server's tool lists (enabledTools, disabledTools) leave it out
    ├── TransportError       the connection itself failed
    │   ├── NotSent          the server could not be reached (refused, no such host): nothing was sent
    │   ├── StartupError     the server could not be started or did not initialize
    │   ├── ServerExited     the server process exited
    │   └── SessionExpired   a remote server ended the session (reads reconnect on their own)
    ├── AuthError            OAuth failed (discovery, registration, login, tokens)
    │   └── LoginRequired    a person has to log in, and nobody can answer here
    ├── ProtocolError        the server broke the protocol (bad version, bad message)
    ├── MessageTooLarge      a message went over the configured size limit
    ├── RequestTimeout       no answer in time (the request was cancelled on the server)
    ├── RequestCancelled     you cancelled it (Cancel on its progress bar)
    └── RPCError             the server answered with a JSON-RPC error object

    ConfigWarning (a UserWarning)   a config file has a key that is not supported: ignored

Messages are one line, say what happened and what to do, and never contain secrets.
A message may quote a server's text: ``str(error)`` shows its control characters as
escapes (``printable``, below); attributes such as ``RPCError.message`` keep it as sent.

This module imports nothing of the package: every module may import it. So ``printable``,
which every error's ``str()`` needs, is defined here; core/safety/text.py, the home of showing a
server's text safely, re-exports it and says what it does and why.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "MCPError",
    "ConfigError",
    "ArgumentError",
    "InvalidArguments",
    "UnknownServer",
    "UnknownTool",
    "UnknownPrompt",
    "NotConnected",
    "ToolDenied",
    "ToolExcluded",
    "TransportError",
    "NotSent",
    "StartupError",
    "ServerExited",
    "SessionExpired",
    "AuthError",
    "LoginRequired",
    "ProtocolError",
    "MessageTooLarge",
    "RequestTimeout",
    "RequestCancelled",
    "RPCError",
    "ConfigWarning",
    "CONTROL",
    "printable",
]

# What printable() never lets through (newline and tab are kept).
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_STYLE = re.compile("\x1b\\[[0-9;:]{0,32}m")


def _shown(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]  # '\x1b' -> \x1b, '\r' -> \r, '\u202e' -> \u202e


def printable(text: str) -> str:
    """``text`` with its control characters shown as escapes (see core/safety/text.py)."""
    if not CONTROL.search(text):
        return text  # the usual case: nothing to do
    if "\x1b" in text:
        text = _STYLE.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return CONTROL.sub(_shown, text)


class MCPError(Exception):
    """Base class of every error mcp-notebook raises on purpose."""

    def __str__(self) -> str:
        # Tracebacks, the magics' one-line errors and str(e) all come here: a server's
        # escape sequences in a message must not reach a terminal.
        return printable(super().__str__())


class ConfigError(MCPError, ValueError):
    pass


class ConfigWarning(UserWarning):
    """A config file has a key that is not supported (or a value read otherwise): ignored."""


class ArgumentError(MCPError, ValueError):
    pass


class InvalidArguments(ArgumentError):
    """Arguments that do not fit the tool's inputSchema: ``reason`` names the field and the
    rule; ``unchecked`` says how to send them anyway, in the caller's terms (``call_tool``'s
    by default; a tool's function words it for itself with ``unchecked_by``; empty where there
    is no way, as in a map)."""

    def __init__(self, tool: str, reason: str, unchecked: str = "pass validate=False") -> None:
        super().__init__(tool, reason, unchecked)  # as args: it pickles (a Dask worker sends it back)
        self.tool, self.reason, self.unchecked = tool, reason, unchecked

    def __str__(self) -> str:
        unchecked = f" or {self.unchecked} to send it anyway" if self.unchecked else ""
        return printable(f"tool {self.tool!r}: {self.reason}; fix the argument{unchecked}")

    def unchecked_by(self, unchecked: str) -> InvalidArguments:
        """The same error, saying ``unchecked`` is how to send the arguments anyway."""
        return InvalidArguments(self.tool, self.reason, unchecked)


class UnknownServer(MCPError, LookupError):
    pass


class UnknownTool(MCPError, LookupError):
    pass


class UnknownPrompt(MCPError, LookupError):
    pass


class NotConnected(MCPError):
    pass


class ToolDenied(MCPError):
    """``unanswered``: denied because nobody could answer (the headless policy), not by a person or a list."""

    unanswered = False


class ToolExcluded(ToolDenied):
    pass


class TransportError(MCPError):
    pass


class NotSent(TransportError):
    """The connection could not be made (refused, a name that does not resolve, a failed
    TLS handshake): the request never left, so sending it again is safe."""


class StartupError(TransportError):
    pass


class ServerExited(TransportError):
    def __init__(self, message: str, *, returncode: int | None = None, stderr: str = "") -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


class SessionExpired(TransportError):
    """The server ended the session: HTTP 404 on a session, or a legacy event stream that
    dropped. A new session is opened on the next use; a tool call is never sent twice."""


class AuthError(MCPError):
    pass


class LoginRequired(AuthError):
    """The server needs a login and nobody can do it here (no widgets, no stdin)."""


class ProtocolError(MCPError):
    pass


class MessageTooLarge(MCPError):
    pass


class RequestTimeout(MCPError, TimeoutError):
    pass


class RequestCancelled(MCPError):
    pass


class RPCError(MCPError):
    """A JSON-RPC error object from the server: ``code``, ``message`` and ``data``."""

    def __init__(
        self,
        code: int,
        message: str,
        data: Any = None,
        *,
        http_status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message
        self.data = data
        self.http_status = http_status  # the HTTP status it came with, when it was an error page
        self.retry_after = retry_after  # seconds that page's Retry-After asked to wait, if it said

    def __repr__(self) -> str:
        return f"RPCError(code={self.code}, message={self.message!r})"
