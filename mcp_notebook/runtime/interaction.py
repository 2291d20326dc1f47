"""How a person is asked: approvals before a call, and waiting while the server asks.

The runtime asks an ``Interaction`` (the notebook layer supplies one that shows cards in
the cell; this module's ``ConsoleInteraction`` asks on a terminal's stdin, and where
nobody can answer it follows the headless policy).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from ..core.loopback import Callback
from ..core.oauth import LoginRequest
from ..core.text import printable
from ..errors import AuthError, ToolDenied
from .terminal import StdinEnded, Wake, ask_login, read_line, stdin_is_terminal

T = TypeVar("T")
ApprovalAnswer = Literal["approve", "always", "deny"]
# Starts work on the background loop: its future, and a thread-safe cancel.
Start = Callable[[], tuple[concurrent.futures.Future[T], Callable[[], None]]]


@dataclass(frozen=True)
class ApprovalRequest:
    server: str
    tool: str
    title: str | None
    annotations: dict[str, Any]
    arguments: dict[str, Any] = field(repr=False)

    def describe(self) -> str:
        hints = ", ".join(f"{k}={v}" for k, v in self.annotations.items() if k.endswith("Hint")) or "none"
        return f"{self.server}.{self.tool} (hints from the server, untrusted: {hints})"


class Interaction(Protocol):
    headless_approval: Literal["deny", "allow"]

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer: ...

    async def aapprove(self, request: ApprovalRequest) -> ApprovalAnswer: ...

    def wait(self, start: Start[T], server: str | None = None) -> T:
        """Call ``start()`` (it returns the work's future and a cancel function) and block
        for the future on this thread, answering the server's questions meanwhile."""
        ...

    async def await_(self, start: Start[T], server: str | None = None) -> T: ...

    @property
    def services_prompts(self) -> bool:
        """True when waiting must go through ``wait``/``await_`` (prompts appear there)."""
        ...


def headless_approval(request: ApprovalRequest, policy: str) -> ApprovalAnswer:
    """Nobody can answer: the policy decides, and says so in one line."""
    if policy == "allow":
        print(f"mcp-notebook: nobody can answer here; ran {request.server}.{request.tool} (headless policy: allow)",
              file=sys.stderr)  # fmt: skip
        return "approve"
    raise ToolDenied(
        f"{request.server}.{request.tool} needs approval and nobody can answer here, so it was denied (nothing "
        f"was sent); allow it with %config MCPMagics.approval_allow = {{'{request.server}': ['{request.tool}']}} "
        "or client.approval.allow"
    )


class ConsoleInteraction:
    """Plain Python: ask on stdin when it is a terminal, else follow the headless policy."""

    def __init__(self, headless_approval: Literal["deny", "allow"] = "deny") -> None:
        self.headless_approval = headless_approval

    services_prompts = False

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return self._approve(request, None)

    def _approve(self, request: ApprovalRequest, wake: Wake | None) -> ApprovalAnswer:
        if not stdin_is_terminal():
            return headless_approval(request, self.headless_approval)
        print(printable(f"Approve {request.describe()} with arguments:"))
        print(printable(json.dumps(request.arguments, indent=2, ensure_ascii=False, default=str)))
        try:
            answer = read_line("[a]pprove / always [A]llow / [d]eny? ", wake)
        except StdinEnded:
            print("mcp-notebook: stdin ended: denied", file=sys.stderr)
            return "deny"
        answers: dict[str, ApprovalAnswer] = {"a": "approve", "A": "always", "approve": "approve", "always": "always"}
        return answers.get((answer or "").strip(), "deny")

    async def aapprove(self, request: ApprovalRequest) -> ApprovalAnswer:
        # Asked on a worker thread; an await that is cancelled ends the read (the wake).
        wake = Wake()

        def ask() -> ApprovalAnswer:
            try:
                return self._approve(request, wake)
            finally:
                wake.close()

        try:
            return await asyncio.get_running_loop().run_in_executor(None, ask)
        finally:
            wake.set()

    def wait(self, start: Start[T], server: str | None = None) -> T:
        return start()[0].result()

    async def await_(self, start: Start[T], server: str | None = None) -> T:
        return await asyncio.wrap_future(start()[0])

    def can_login(self) -> bool:
        return stdin_is_terminal()

    async def alogin(self, request: LoginRequest) -> str:
        """On a terminal: print the authorization URL and wait for the browser to come back
        to the loopback listener, or for the address it landed on to be pasted. The paste
        is read on a worker thread, which the wake ends when the browser comes back."""
        callback: Callback | None = Callback(request.redirect_uri)
        try:
            await callback.start()  # type: ignore[union-attr]
        except OSError:
            callback = None
        request.callback = callback
        wake = Wake()

        def paste() -> str | None:
            try:
                return ask_login(request, wake)
            finally:
                wake.close()

        pasted = asyncio.get_running_loop().run_in_executor(None, paste)
        waiting = [pasted] + ([asyncio.ensure_future(callback.wait())] if callback is not None else [])
        try:
            done, pending = await asyncio.wait(waiting, timeout=300, return_when=asyncio.FIRST_COMPLETED)
            if pasted in done and pending and pasted.exception() is None and not pasted.result():
                done, _ = await asyncio.wait(pending, timeout=300)  # Enter alone: keep waiting for the browser
            for future in done:
                if future.exception() is None and future.result():
                    return str(future.result())
            if pasted in done and isinstance(pasted.exception(), StdinEnded):
                print("mcp-notebook: stdin ended: login cancelled", file=sys.stderr)
                raise AuthError(f"the login to {request.server!r} was cancelled (stdin ended)")
            raise AuthError(f"no login to {request.server!r} arrived in 5 minutes; try again")
        finally:
            wake.set()  # the worker stops reading stdin: nothing is left to take the next line
            for future in waiting[1:]:
                future.cancel()
            if callback is not None:
                callback.close()
