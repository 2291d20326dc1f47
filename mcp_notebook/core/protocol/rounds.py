"""Input-required rounds (2026-07-28, "multi round-trip requests"), sans-IO.

A modern server may answer ``tools/call``, ``resources/read`` or ``prompts/get`` with
``resultType: "input_required"``: questions for the client (``inputRequests``: elicitation,
sampling, roots) and an opaque ``requestState``. The client answers every question and sends
the request again, under a new id, with ``inputResponses`` and the state echoed byte for
byte. Here: what such a result must hold, what the retry carries, and the cap on rounds.
The session keeps the caller waiting on one request while the rounds happen (roundtrips.py);
incoming.py runs the handlers that answer.
"""

from __future__ import annotations

import concurrent.futures
from dataclasses import dataclass
from typing import Any

from ...errors import MCPError, ProtocolError, RPCError
from ..safety.text import clipped
from .constants import MISSING_CLIENT_CAPABILITY

JSON = dict[str, Any]

INPUT_REQUIRED = "input_required"
METHODS = frozenset({"tools/call", "resources/read", "prompts/get"})  # the only ones that may ask
ASKABLE = frozenset({"elicitation/create", "sampling/createMessage", "roots/list"})
MAX_ROUNDS = 10
BACKOFF = (0.05, 0.25)  # a state-only round: first wait, longest wait (seconds)

# What to do when a capability is missing, by capability.
_HOW = {
    "elicitation": "load the extension in a notebook (%load_ext mcp_notebook), or pass "
    "Handlers(elicitation=...) to Client()",
    "sampling": "load the extension in a notebook, or pass Handlers(sampling=...) to Client()",
    "roots": "pass Handlers(roots=...) to Client()",
}


def check_questions(requests: JSON, who: str) -> None:
    """ProtocolError unless each of ``requests`` (``inputRequests``, by key) is a question this
    client answers (elicitation, sampling, roots) with params that are an object; ``who``
    starts the message (the rounds of a request and a modern task's input both ask so)."""
    for key, request in requests.items():
        method = request.get("method") if isinstance(request, dict) else None
        asked = f"{who} asked {clipped(str(key), 40)!r} with"
        if method not in ASKABLE:
            raise ProtocolError(f"{asked} {clipped(str(method), 40)!r}, which is not a question this client answers")
        if not isinstance(request.get("params", {}), dict):
            raise ProtocolError(f"{asked} params that are not an object")


def asks(method: str, result: JSON) -> bool:
    """Whether ``result`` (of ``method``) is a round: the server needs input first."""
    return result.get("resultType") == INPUT_REQUIRED and method in METHODS


@dataclass
class Round:
    """One input-required result, checked: the questions (by key) and the state to echo."""

    requests: dict[str, JSON]
    state: str | None


@dataclass(repr=False)
class Rounds:
    """A request's rounds so far: its method and first params (the retries resend them)."""

    server: str
    method: str
    params: JSON
    count: int = 0
    streak: int = 0  # state-only rounds in a row
    task: concurrent.futures.Future[None] | None = None  # the answering, on the loop
    over: bool = False  # its caller gave up: nothing more is sent

    def __repr__(self) -> str:
        return f"<Rounds {self.method} to {self.server!r} round {self.count}>"

    def next(self, result: JSON, max_rounds: int = MAX_ROUNDS) -> Round:
        """Check an input-required result and count it; ProtocolError if it is malformed or
        the cap is reached (nothing about it is trusted)."""
        self.count += 1
        who = f"{self.method} to server {self.server!r}"
        if self.count > max_rounds:
            raise ProtocolError(
                f"{who} still asked for input after {max_rounds} rounds; gave up (the server does not "
                "accept the answers: check its logs)"
            )
        requests = result.get("inputRequests")
        state = result.get("requestState")
        if requests is None and state is None:
            raise ProtocolError(f"{who}: the server asked for input but sent neither inputRequests nor requestState")
        if state is not None and not isinstance(state, str):
            raise ProtocolError(f"{who}: the server sent a requestState that is not a string")
        if requests is None:
            self.streak += 1
            return Round({}, state)
        self.streak = 0
        if not isinstance(requests, dict):
            raise ProtocolError(f"{who}: the server sent inputRequests that is not an object")
        check_questions(requests, f"{who}: the server")
        return Round(requests, state)

    def backoff(self) -> float:
        """Seconds to wait before retrying a state-only round (longer for each in a row)."""
        first, longest = BACKOFF
        return float(min(first * 2 ** max(self.streak - 1, 0), longest))

    def is_over(self) -> bool:
        """Whether its caller gave up (read again after any step another thread may race)."""
        return self.over

    def end(self) -> None:
        """Its caller gave up (any thread): the answering is cancelled, nothing more is sent."""
        self.over = True
        if self.task is not None:
            self.task.cancel()

    def retry_params(self, answers: JSON | None, state: str | None, rid: int) -> JSON:
        """The retry's params: the first ones, plus the answers and the state as sent (absent
        when absent); a progress token follows the new id ``rid``."""
        params = {k: v for k, v in self.params.items() if k not in ("inputResponses", "requestState")}
        meta = params.get("_meta")
        if isinstance(meta, dict) and "progressToken" in meta:
            params["_meta"] = {**meta, "progressToken": rid}
        if answers is not None:
            params["inputResponses"] = answers
        if state is not None:
            params["requestState"] = state
        return params


def failed(error: Exception, method: str, server: str) -> MCPError:
    """The error a request ends with when answering its server's questions failed."""
    text = error.message if isinstance(error, RPCError) else str(error) or type(error).__name__
    where = f"{method} to server {server!r} asked for input and"
    if isinstance(error, RPCError):
        return RPCError(error.code, f"{where} {text}", error.data)
    if isinstance(error, MCPError):  # its type says what happened (a cancel, a closed connection)
        error.args = (f"{where} {text}",)
        return error
    return ProtocolError(f"{where} answering failed: {type(error).__name__}: {text}")


def missing_capability(error: RPCError, method: str, server: str) -> RPCError:
    """-32021 in one line: which capability the server needs and how to give it."""
    if error.code != MISSING_CLIENT_CAPABILITY:
        return error
    data = error.data if isinstance(error.data, dict) else {}
    needed = data.get("requiredCapabilities")
    names = [str(k)[:40] for k in needed] if isinstance(needed, dict) and needed else []
    what = ", ".join(names) or "a capability it did not name"
    how = "; ".join(_HOW.get(n, f"this client cannot offer {n!r}") for n in names) or "see the server's docs"
    message = (
        f"{method}: server {server!r} needs the client capability {what}, which this client did not declare: "
        f"{how}; then reconnect it (%mcp restart {server})"
    )
    return RPCError(error.code, message, error.data)


__all__ = [
    "failed",
    "ASKABLE",
    "INPUT_REQUIRED",
    "MAX_ROUNDS",
    "METHODS",
    "Round",
    "Rounds",
    "asks",
    "check_questions",
    "missing_capability",
]
