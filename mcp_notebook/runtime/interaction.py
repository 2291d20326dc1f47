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
        if not (sys.stdin and sys.stdin.isatty()):
            return headless_approval(request, self.headless_approval)
        print(printable(f"Approve {request.describe()} with arguments:"))
        print(printable(json.dumps(request.arguments, indent=2, ensure_ascii=False, default=str)))
        answer = input("[a]pprove / always [A]llow / [d]eny? ").strip()
        return {"a": "approve", "A": "always", "approve": "approve", "always": "always"}.get(answer, "deny")

    async def aapprove(self, request: ApprovalRequest) -> ApprovalAnswer:
        return await asyncio.get_running_loop().run_in_executor(None, self.approve, request)

    def wait(self, start: Start[T], server: str | None = None) -> T:
        return start()[0].result()

    async def await_(self, start: Start[T], server: str | None = None) -> T:
        return await asyncio.wrap_future(start()[0])

    def can_login(self) -> bool:
        return bool(sys.stdin and sys.stdin.isatty())

    async def alogin(self, request: LoginRequest) -> str:
        """On a terminal: print the authorization URL and wait for the browser to come back
        to the loopback listener, or for the address it landed on to be pasted."""
        callback: Callback | None = Callback(request.redirect_uri)
        try:
            await callback.start()  # type: ignore[union-attr]
        except OSError:
            callback = None
        request.callback = callback
        print(printable(f"{request.server} needs you to log in at {request.issuer}. Open this address in a browser:"))
        print(printable(f"  {request.url}"))
        print("Waiting for the browser to come back (or paste the address it landed on, then Enter):")
        loop = asyncio.get_running_loop()
        pasted = loop.run_in_executor(None, _read_line)
        waiting = [pasted] + ([asyncio.ensure_future(callback.wait())] if callback is not None else [])
        try:
            done, pending = await asyncio.wait(waiting, timeout=300, return_when=asyncio.FIRST_COMPLETED)
            for future in done:
                if not future.exception() and future.result():
                    return str(future.result())
            if pasted in done and pending:  # Enter alone: keep waiting for the browser
                done, _ = await asyncio.wait(pending, timeout=300)
                for future in done:
                    if not future.exception() and future.result():
                        return str(future.result())
            raise AuthError(f"no login to {request.server!r} arrived in 5 minutes; try again")
        finally:
            if callback is not None:
                callback.close()


def _read_line() -> str:
    try:
        return input().strip()
    except EOFError:
        return ""
