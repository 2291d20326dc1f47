"""The questions a person answers, one class per kind: an approval before a call, a form
(elicitation), a page to open (URL elicitation), a model reply (sampling) and a login.

Each knows how it is asked in a card, on stdin (``input()``: terminal IPython, and kernels
where a waiting cell gets no clicks) and where nobody can answer (the headless policy), and
what no answer means. A new kind is a new class here (and its card in cards.py).

End of input on stdin ends a question: an approval is denied, a form cancelled, a sampling
request declined, a login cancelled, each said in one line. What a server sent is printed
through ``printable`` (core/safety/text.py): a terminal must not obey its escape sequences.
"""

from __future__ import annotations

import concurrent.futures
import sys
from collections.abc import Callable
from typing import Any, ClassVar, Literal, Protocol

from ..core.safety.links import link_problem
from ..core.safety.text import printable
from ..errors import LoginRequired, RPCError
from ..runtime.asking.interaction import ApprovalAnswer, ApprovalRequest, approval_on_stdin, headless_approval
from ..runtime.asking.terminal import StdinEnded
from . import console
from .notices import note
from .places import cell_text

__all__ = ["Approval", "Asker", "Elicitation", "Login", "Question", "Sampling", "UrlElicitation", "draft"]

DECLINED = "the user declined the sampling request"


class Asker(Protocol):
    """What a question reads from whoever asks it (the notebook's interaction)."""

    headless_approval: Literal["deny", "allow"]
    headless_elicitation: Literal["decline", "cancel"]
    sampler: Callable[[dict[str, Any]], Any] | None  # drafts a sampling reply
    sampling_needs_approval: bool
    url_cards: dict[str, Any]  # URL cards by elicitation id: the server may say a step is complete


class Question:
    """A question from ``server`` and its answer, set by the cell that shows it."""

    ended: ClassVar[str] = "cancelled"  # what end of input on stdin did to it

    def __init__(self, server: str, params: Any) -> None:
        self.server, self.params = server, params
        self.answer: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.card: Any = None  # once shown

    def __repr__(self) -> str:
        return f"<{type(self).__name__} from {self.server!r}>"

    def preset(self, asker: Asker) -> Any:
        """An answer given without asking anyone, or None: ask."""
        return None

    def make_card(self, asker: Asker) -> Any:
        """The card that asks it (cards.py)."""
        raise NotImplementedError

    def result(self, answer: Any) -> Any:
        """The reply for a card's answer (None: it was closed unanswered)."""
        return answer

    def ask_stdin(self, asker: Asker) -> Any:
        """Ask with ``input()``; end of input ends the question, said in one line."""
        try:
            return self.on_stdin(asker)
        except StdinEnded:  # nobody can answer: end the question, do not ask again
            print(f"mcp-notebook: stdin ended: {self.ended}", file=sys.stderr)
            return self.stdin_ended()

    def on_stdin(self, asker: Asker) -> Any:
        raise NotImplementedError

    def stdin_ended(self) -> Any:
        raise NotImplementedError

    def headless(self, asker: Asker) -> Any:
        """Nobody can answer: the policy's reply, or an error, said in one line."""
        raise NotImplementedError


class Approval(Question):
    """Run a tool? (``params``: the ApprovalRequest)"""

    ended = "denied"
    params: ApprovalRequest

    def make_card(self, asker: Asker) -> Any:
        from .cards import ApprovalCard

        return ApprovalCard(self.params)

    def result(self, answer: Any) -> ApprovalAnswer:
        return "deny" if answer is None else answer

    def on_stdin(self, asker: Asker) -> ApprovalAnswer:
        return approval_on_stdin(self.params, console.read_answer)

    def stdin_ended(self) -> ApprovalAnswer:
        return "deny"

    def headless(self, asker: Asker) -> ApprovalAnswer:
        return headless_approval(self.params, asker.headless_approval)


class Elicitation(Question):
    """A form the server asks the person to fill in (``params``: elicitation/create's)."""

    def make_card(self, asker: Asker) -> Any:
        from .cards import ElicitationCard

        return ElicitationCard(self.server, self.params)

    def result(self, answer: Any) -> Any:
        return {"action": "cancel"} if answer is None else answer

    def on_stdin(self, asker: Asker) -> dict[str, Any]:
        return console.form(self.server, self.params)

    def stdin_ended(self) -> dict[str, Any]:
        return {"action": "cancel"}

    def headless(self, asker: Asker) -> dict[str, Any]:
        action = asker.headless_elicitation
        note(f"mcp-notebook: {self.server} asked for input and nobody can answer here: {action}")
        return {"action": action}


class UrlElicitation(Elicitation):
    """A page the server asks the person to open (URL-mode elicitation)."""

    def make_card(self, asker: Asker) -> Any:
        from .cards import UrlCard

        card = UrlCard(self.server, self.params)
        if card.elicitation_id:
            asker.url_cards[card.elicitation_id] = card
        return card

    def on_stdin(self, asker: Asker) -> dict[str, Any]:
        url = self.params.get("url", "")
        # A refused address is shown broken (in a kernel this is stream output, made links of).
        print(cell_text(printable(f"{self.server} asks you to open a page: {self.params.get('message', '')}\n  {url}")))
        problem = link_problem(url)
        if problem is not None:  # nothing to open: only declining or cancelling make sense
            print(f"  ⚠ do not open it: {problem}")
            answer = console.read_answer("Decline / Cancel? [d/c] ").strip().lower()
            return {"action": "decline" if answer[:1] == "d" else "cancel"}
        answer = console.read_answer("Accept / Decline / Cancel? [a/d/c] ").strip().lower()
        return {"action": {"a": "accept", "d": "decline"}.get(answer[:1], "cancel")}


class Sampling(Question):
    """A model reply the server asks for; ``asker.sampler`` may draft it."""

    ended = "declined"

    def preset(self, asker: Asker) -> Any:
        if asker.sampler is None or asker.sampling_needs_approval:
            return None
        return _reply(*draft(asker.sampler, self.params))

    def make_card(self, asker: Asker) -> Any:
        from .cards import SamplingCard

        return SamplingCard(self.server, self.params, *draft(asker.sampler, self.params))

    def result(self, answer: Any) -> Any:
        if answer is None:
            raise RPCError(-1, DECLINED)
        return answer

    def on_stdin(self, asker: Asker) -> dict[str, Any]:
        for message in self.params.get("messages") or []:
            content = message.get("content") or {}
            print(cell_text(printable(f"[{message.get('role')}] {content.get('text', '')}")))
        text, model = draft(asker.sampler, self.params)
        prompt = f"{self.server} asks for a model reply (empty declines){f' [{text}]' if text else ''}: "
        reply = console.read_answer(printable(prompt)) or text
        if not reply:
            raise RPCError(-1, DECLINED)
        return _reply(reply, model)

    def stdin_ended(self) -> Any:
        raise RPCError(-1, f"{DECLINED} (stdin ended)") from None

    def headless(self, asker: Asker) -> Any:
        how = (
            "%config MCPMagics.sampling_needs_approval = False sends the sampler's drafts"
            if asker.sampler is not None
            else "set get_client().interaction.sampler to answer with your own code"
        )
        note(f"mcp-notebook: {self.server} asked for a model reply and nobody can approve one here: declined ({how})")
        raise RPCError(-1, "no one can answer sampling requests here (headless)")


class Login(Question):
    """An OAuth login (``params``: the core's LoginRequest). Its answer: the address the
    browser landed on, pasted; None when there is none (the listener got it, or cancelled)."""

    ended = "login cancelled"

    def make_card(self, asker: Asker) -> Any:
        from .cards import LoginCard

        return LoginCard(self.params)

    def on_stdin(self, asker: Asker) -> str | None:
        return console.login(self)

    def stdin_ended(self) -> None:
        return None

    def headless(self, asker: Asker) -> Any:
        raise LoginRequired(f"server {self.server!r} needs a login and nobody can log in here")


def draft(sampler: Callable[[dict[str, Any]], Any] | None, params: dict[str, Any]) -> tuple[str, str]:
    """A sampling reply's draft and the model to name: the sampler's, or none (a person)."""
    if sampler is None:
        return "", "human"
    reply = sampler(params)
    if isinstance(reply, dict):
        content = reply.get("content") or {}
        return str(content.get("text", "")), str(reply.get("model", "callback"))
    return str(reply), "callback"


def _reply(text: str, model: str) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": text}, "model": model, "stopReason": "endTurn"}
