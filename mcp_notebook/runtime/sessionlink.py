"""A stdio connection's open session as a request's link (``Connection.steady``): a bulk
map's rows go straight to the session, with no hop through the connection per row."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

from ..core.session.session import ClientSession, ProgressCallback
from .context import DEFAULT

JSON = dict[str, Any]


class SessionLink:
    """A stdio connection's open session as a request's link (``Connection.steady``)."""

    __slots__ = ("name", "session", "timeout")

    def __init__(self, name: str, session: ClientSession, timeout: float | None) -> None:
        self.name, self.session, self.timeout = name, session, timeout  # timeout: for DEFAULT

    def __repr__(self) -> str:
        return f"<SessionLink {self.name!r}>"

    def request(
        self, method: str, params: JSON | None, timeout: Any = DEFAULT, on_progress: ProgressCallback | None = None
    ) -> Coroutine[Any, Any, JSON]:
        session = self.session
        if session.closed:  # a fresh error per row, naming its method: one shared would gather every row's traceback
            raise session.closed_exception(method)
        timeout = self.timeout if timeout is DEFAULT else timeout
        return session.request(method, params, timeout=timeout, on_progress=on_progress)


__all__ = ["SessionLink"]
