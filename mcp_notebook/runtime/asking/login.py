"""Waiting for an OAuth login: the browser comes back to a loopback listener on this
machine, or the person pastes the address it landed on (a remote kernel, which the browser
cannot reach). ``listen`` runs that race for any way of asking for the paste (a ``Paste``:
a terminal here, a card in the notebook layer), with one 5-minute limit, and leaves nothing
behind: no listener, and nothing still reading stdin to take the next line typed.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Literal, Protocol

from ...core.auth.loopback import Callback
from ...core.auth.oauth import LoginRequest
from ...errors import AuthError
from .terminal import StdinEnded, Wake, ask_login

__all__ = ["LOGIN_WAIT", "Ending", "Paste", "TerminalPaste", "listen"]

LOGIN_WAIT = 300.0  # seconds a login may take ("5 minutes" in the messages)
Ending = Literal["landed", "expired", "over"]  # how a login's wait ended


class Paste(Protocol):
    """How a person is asked for the address the browser landed on."""

    retry: str  # how to try again, for the message when no login arrived in time

    async def ask(self, request: LoginRequest) -> str | None:
        """The address pasted; None: nothing was, keep waiting for the browser. Raising
        ends the login (cancelled, interrupted)."""
        ...

    def end(self, ending: Ending) -> None:
        """The wait is over (the browser came back, the time ran out, or it ended another
        way): stop asking, at once."""
        ...


async def listen(request: LoginRequest, paste: Paste) -> str:
    """The address the browser was sent back to, from the listener or pasted."""
    callback: Callback | None = Callback(request.redirect_uri)
    try:
        await callback.start()  # type: ignore[union-attr]
    except OSError:
        callback = None  # the port is taken: pasting the address still works
    request.callback = callback
    asked = asyncio.ensure_future(paste.ask(request))
    landed = asyncio.ensure_future(callback.wait(LOGIN_WAIT)) if callback is not None else None
    ending: Ending = "over"
    try:
        waiting = {f for f in (asked, landed) if f is not None}
        while waiting:
            done, waiting = await asyncio.wait(waiting, timeout=LOGIN_WAIT, return_when=asyncio.FIRST_COMPLETED)
            if not done:
                break
            if landed is not None and landed in done:
                if landed.exception() is not None:
                    break  # the listener's time is up
                ending = "landed"
                return landed.result()
            pasted = asked.result()  # an exception ends the login
            if pasted:
                return pasted
            if landed is None:
                raise AuthError(f"the login to {request.server!r} was cancelled")
            # nothing pasted (Enter alone): keep waiting for the browser
        ending = "expired"
        raise AuthError(f"no login to {request.server!r} arrived in 5 minutes; {paste.retry}")
    finally:
        paste.end(ending)
        for future in (asked, landed):
            if future is not None:
                future.cancel()
                future.add_done_callback(_retrieved)
        if callback is not None:
            callback.close()


def _retrieved(future: asyncio.Future[Any]) -> None:
    # An answer that lost the race (a paste failing as the browser came back) is not an error.
    if not future.cancelled():
        future.exception()


class TerminalPaste:
    """On a terminal: print the authorization URL and read a paste on a worker thread,
    which a ``Wake`` ends when the login is over (a read left pending would take the next
    line typed at the prompt)."""

    retry = "try again"

    def __init__(self) -> None:
        self.wake: Wake | None = None

    async def ask(self, request: LoginRequest) -> str | None:
        wake = self.wake = Wake()

        def read() -> str | None:
            try:
                return ask_login(request, wake)
            finally:
                wake.close()

        try:
            return await asyncio.get_running_loop().run_in_executor(None, read)
        except StdinEnded:
            print("mcp-notebook: stdin ended: login cancelled", file=sys.stderr)
            raise AuthError(f"the login to {request.server!r} was cancelled (stdin ended)") from None

    def end(self, ending: Ending) -> None:
        if self.wake is not None:
            self.wake.set()  # the worker stops reading stdin

    def __repr__(self) -> str:
        return f"<TerminalPaste {self.wake!r}>"
