"""Requests the server sends the client (``ping``, ``roots/list``, ``sampling/createMessage``,
``elicitation/create``): the handlers that answer them, the capabilities they declare, and
the tasks that run them until they answer or the server cancels them."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ...errors import ProtocolError, RPCError
from ..protocol.constants import INTERNAL_ERROR, METHOD_NOT_FOUND

JSON = dict[str, Any]
# A handler takes the request's params and returns the result (or an awaitable of it).
Handler = Callable[[JSON], "JSON | Awaitable[JSON]"]

# Questions answered at once (one input-required round, one task's input): each may be a
# card a person must answer; a server asking more is refused before any is shown.
MAX_QUESTIONS = 32

# The server whose request a handler is answering (handlers take only the params).
current_server: contextvars.ContextVar[str] = contextvars.ContextVar("current_server", default="")


@dataclass
class Handlers:
    """Answers to server→client requests. A capability is declared only for a set handler.

    A handler may carry a ``capability`` attribute (a dict) to declare more than ``{}``.
    """

    elicitation: Handler | None = None
    sampling: Handler | None = None
    roots: Handler | None = None
    # Extensions declared in both eras because the frontend can follow them (MCP Apps where
    # widgets show: the notebook sets it), unlike those the runtime follows (modern only);
    # a function is asked at each connect (a frontend's abilities are known only then).
    extensions: JSON | Callable[[], JSON | None] | None = None

    def capabilities(self) -> JSON:
        caps: JSON = {}
        for key, handler in (("roots", self.roots), ("sampling", self.sampling), ("elicitation", self.elicitation)):
            if handler is not None:
                default = {"listChanged": True} if key == "roots" else {}
                caps[key] = dict(getattr(handler, "capability", default))
        extensions = self.extensions() if callable(self.extensions) else self.extensions
        if extensions:
            caps["extensions"] = {name: dict(settings) for name, settings in extensions.items()}
        return caps

    def for_method(self, method: str) -> Handler | None:
        if method == "ping":
            return _pong
        if method == "roots/list":
            return self.roots
        if method == "sampling/createMessage":
            return self.sampling
        if method == "elicitation/create":
            return self.elicitation
        return None


def _pong(params: JSON) -> JSON:
    return {}


def error_object(code: int, message: str, data: Any = None) -> JSON:
    error: JSON = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return error


async def answer(handlers: Handlers, server: str, method: str, params: JSON) -> JSON:
    """Run the handler for one of ``server``'s questions (its own request, or an input
    request of a round) and return its result; RPCError when there is none."""
    current_server.set(server)  # the calling task's own context: handlers take only the params
    handler = handlers.for_method(method)
    if handler is None:
        raise RPCError(METHOD_NOT_FOUND, f"mcp-notebook has no handler for {method}")
    result = handler(params)
    if inspect.isawaitable(result):
        result = await result
    return result or {}


async def answer_all(handlers: Handlers, server: str, requests: dict[str, JSON]) -> JSON:
    """Answer every input request of a round, each in its own task (a waiting cell shows
    their cards one after another), keyed as asked. The first failure ends them all; more
    than MAX_QUESTIONS at once is a ProtocolError (none is asked)."""
    if len(requests) > MAX_QUESTIONS:
        raise ProtocolError(
            f"server {server!r} sent {len(requests)} questions at once, over the limit of {MAX_QUESTIONS}; "
            "none was answered: the server misbehaves (check its logs)"
        )
    keys = list(requests)
    tasks = [
        asyncio.ensure_future(answer(handlers, server, requests[k]["method"], requests[k].get("params") or {}))
        for k in keys
    ]
    try:
        results = await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        raise
    return dict(zip(keys, results, strict=True))


class Incoming:
    """The server's requests being answered, by id. ``reply(message)`` sends an answer."""

    def __init__(self, name: str, handlers: Handlers, reply: Callable[[JSON], Awaitable[None]]) -> None:
        self.name = name
        self.handlers = handlers
        self._reply = reply
        self._tasks: dict[int | str, asyncio.Task[None]] = {}

    def start(self, message: JSON) -> None:
        rid = message["id"]
        self._tasks[rid] = asyncio.ensure_future(self._answer(rid, message["method"], message.get("params") or {}))

    def cancel(self, rid: Any) -> None:
        """The server cancelled its request (``notifications/cancelled``)."""
        task = self._tasks.get(rid)
        if task is not None:
            task.cancel()

    def cancel_all(self) -> None:
        for task in self._tasks.values():
            task.cancel()

    async def _answer(self, rid: int | str, method: str, params: JSON) -> None:
        try:
            reply: JSON = {
                "jsonrpc": "2.0",
                "id": rid,
                "result": await answer(self.handlers, self.name, method, params),
            }
        except asyncio.CancelledError:
            return  # the server cancelled it: the spec says send nothing
        except RPCError as e:
            reply = {"jsonrpc": "2.0", "id": rid, "error": error_object(e.code, e.message, e.data)}
        except Exception as e:
            reply = {"jsonrpc": "2.0", "id": rid, "error": error_object(INTERNAL_ERROR, f"{type(e).__name__}: {e}")}
        finally:
            self._tasks.pop(rid, None)
        await self._reply(reply)


__all__ = ["MAX_QUESTIONS", "Handler", "Handlers", "Incoming", "answer", "answer_all", "current_server", "error_object"]
