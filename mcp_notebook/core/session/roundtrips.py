"""Driving a request's input-required rounds (2026-07-28): the I/O around rounds.py.

When a modern server answers with ``resultType: "input_required"``, the caller keeps waiting
on its one ``Pending`` while the loop answers every question with the session's handlers
(incoming.py) and sends the request again under a new id. Between rounds nothing is in
flight and the clock stops (a person may take long); it restarts with the retry.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from ...errors import MCPError, ProtocolError
from ..history.calls import Recorder
from ..protocol import rounds
from ..transports.base import Transport
from .incoming import Handlers, answer_all
from .pending import Pending, PendingRequests

JSON = dict[str, Any]


class Asked(Protocol):
    """What the driver needs of the session whose requests it retries (session.py)."""

    name: str
    handlers: Handlers
    transport: Transport
    recorder: Recorder

    @property
    def closed(self) -> bool: ...


class InputRounds:
    """One session's input-required rounds: each asking request's answers and retry."""

    def __init__(self, session: Asked, requests: PendingRequests) -> None:
        self.session = session
        self.requests = requests  # the session's requests in flight

    def __repr__(self) -> str:
        return f"<InputRounds {self.session.name!r}>"

    def asked(self, pending: Pending, result: JSON, loop: asyncio.AbstractEventLoop | None) -> None:
        """The server asked for input (any thread): nothing is in flight, and the clock stops
        (a person may take long), while ``loop`` answers and retries."""
        name = self.session.name
        state = pending.rounds = pending.rounds or rounds.Rounds(name, pending.method, pending.params or {})
        self.requests.by_id.pop(pending.rid, None)  # type: ignore[arg-type]
        pending.rid = pending.deadline = None
        pending.watched = False  # the retries are read by the loop
        try:
            asked = state.next(result)
        except ProtocolError as e:
            self.requests.settle(pending, error=e)
            return
        assert loop is not None
        state.task = asyncio.run_coroutine_threadsafe(self._answer(pending, asked), loop)

    async def _answer(self, pending: Pending, asked: rounds.Round) -> None:
        session, requests = self.session, self.requests
        state = pending.rounds
        assert state is not None  # set by asked()
        try:
            if state.over:
                return
            if asked.requests:
                answers: JSON | None = await answer_all(session.handlers, session.name, asked.requests)
            else:
                await asyncio.sleep(state.backoff())  # only state: the server is not ready yet
                answers = None
        except asyncio.CancelledError:
            return  # its caller gave up
        except Exception as e:  # a question refused or failed: the whole request fails, saying so
            requests.settle(pending, error=rounds.failed(e, pending.method, session.name))
            return
        if state.over or pending.settled or session.closed:
            return
        rid = requests.new_id()
        params = state.retry_params(answers, asked.state, rid)
        requests.remap(pending, rid, asyncio.get_running_loop())  # its clock restarts now
        if state.is_over():  # its caller gave up meanwhile (another thread): the retry is not sent
            requests.by_id.pop(rid, None)
            return
        retry = {"jsonrpc": "2.0", "id": rid, "method": pending.method, "params": params}
        session.recorder.retried(retry)  # the transcript shows it; the history keeps the one call
        try:
            await session.transport.send(retry)
        except MCPError as e:
            requests.settle(pending, error=e)


__all__ = ["Asked", "InputRounds"]
