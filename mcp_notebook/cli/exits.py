"""What ``mcp-notebook``'s exit status says, and which error gives which (``--help`` lists them)."""

from __future__ import annotations

from ..errors import (
    ArgumentError,
    AuthError,
    ConfigError,
    NotConnected,
    RequestTimeout,
    ToolDenied,
    ToolExcluded,
    TransportError,
    UnknownPrompt,
    UnknownServer,
    UnknownTool,
)

__all__ = ["AUTH", "CONNECT", "CUT", "MEANINGS", "OK", "SERVER_ERROR", "TIMEOUT", "USAGE", "exit_code"]

OK = 0
SERVER_ERROR = 1
USAGE = 2
AUTH = 3
CONNECT = 4
TIMEOUT = 5
CUT = 6  # never an error's: only a terminal's output, cut

MEANINGS = {
    OK: "done",
    SERVER_ERROR: "the tool returned an error (isError), or the server answered with one",
    USAGE: "usage: a wrong subcommand, option or argument; an unknown server, tool or prompt; a bad config file",
    AUTH: "authorization: a login is needed and nobody can give it here, a login failed, or a call was not approved",
    CONNECT: "could not connect: the server did not start, could not be reached, or exited",
    TIMEOUT: "timed out: no answer within the timeout (the request was cancelled on the server)",
    CUT: "output cut: stdout is a terminal and the result was longer than it shows (stderr says so); "
    "redirect stdout to a file or pipe for all of it",
}


def exit_code(error: BaseException) -> int:
    """The status for an error a subcommand raised (never OK)."""
    if isinstance(error, RequestTimeout | TimeoutError):
        return TIMEOUT
    if isinstance(error, ArgumentError | ConfigError | UnknownServer | UnknownTool | UnknownPrompt | ToolExcluded):
        return USAGE
    if isinstance(error, AuthError | ToolDenied):
        return AUTH
    if isinstance(error, TransportError | NotConnected):
        return CONNECT
    return SERVER_ERROR
