"""The card that asks whether to trust a folder's project servers (core/config/trust.py):
what each would run and would get (the ``${VAR}`` secrets and where they go, the environment
it sets, its envFile, cwd and alwaysAllow), which of the person's own servers each would
replace, and two buttons, "Trust" and "Don't trust". ``%mcp load`` shows it and goes on:
the buttons act when clicked. Trusting starts the servers in a task of the kernel's loop,
outside any cell (as a view's requests run, appview.py): the click returns at once, the
kernel answers other requests while a server starts, and a login card or approval a server
needs shows in this card, whose lines say what started. Answered and done, it leaves a
record in its place, as every card does (records.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import ipywidgets as w

from ..core.config.trust import TrustAnswer, TrustQuestion
from ..core.safety.text import escape
from .cards import Card
from .modes import OUTSIDE_CELLS
from .places import SHOWN_IN, OutputPlace
from .records import Record

__all__ = ["TrustCard"]

_BOX = {"border": "1px solid #bbb", "padding": "6px 10px", "margin": "4px 0", "width": "auto"}  # as cards.py's
_PRE = "white-space:pre-wrap;margin:2px 0;padding:4px;background:rgba(127,127,127,0.08);border-radius:3px"
# The tasks started by clicks, held until done (the loop keeps only weak references).
_STARTING: set[asyncio.Task[None]] = set()


class TrustCard(Card):
    """``answer(yes)``: what the click does (run or awaited), and the lines to show after it."""

    def __init__(self, question: TrustQuestion, answer: Callable[[bool], TrustAnswer]) -> None:
        super().__init__()
        self.question = question
        self._act = answer
        servers = "\n".join(question.server_lines())  # what each runs, and what it would get
        why = "changed since you trusted it" if question.changed else "not trusted yet"
        self.record = Record(f"🛡 Trust the project servers of {question.path}?", [("servers", servers)])
        head = w.HTML(
            f"<b>🛡 Trust this folder's project servers?</b> <code>{escape(str(question.path))}</code> ({why})"
            "<div style='font-size:0.9em;margin-top:4px'>Trusting it runs these commands on this machine, with "
            "${VAR} taken from your environment. Trust only a project you know.</div>"
            f"<pre style='{_PRE}'>{escape(servers)}</pre>"
        )
        self.output = w.Output()  # a login card or an approval the starting servers ask for
        self.widget = w.VBox(
            [
                head,
                w.HBox([self._button("Trust", "warning", True), self._button("Don't trust", "", False)]),
                self.status,
                self.output,
            ],
            layout=w.Layout(**_BOX),
        )

    def _button(self, label: str, style: str, yes: bool) -> w.Button:
        button = w.Button(description=label, button_style=style)
        button.on_click(lambda _: self._answer(yes))
        return button

    def _answer(self, yes: bool) -> None:
        if self.answered:
            return
        self._finish(yes, "trusted" if yes else "not trusted")
        if yes:
            self.status.value = "<i>trusted: starting its servers…</i>"
        try:
            answer = self._act(yes)
        except Exception as e:  # a click has no cell to raise in: the card says it
            self._show([f"{type(e).__name__}: {e}"])
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop on this thread (not a kernel's click): run it here
            self._show(self._lines(answer.run))
            return
        task = loop.create_task(self._await(answer))
        _STARTING.add(task)
        task.add_done_callback(_STARTING.discard)

    async def _await(self, answer: TrustAnswer) -> None:
        OUTSIDE_CELLS.set(True)  # in this task's own context only: clicks reach its cards
        place = OutputPlace(self.output, clear=False)
        token = SHOWN_IN.set(place)
        try:
            lines = await answer.arun()
        except Exception as e:
            lines = [f"{type(e).__name__}: {e}"]
        finally:
            SHOWN_IN.reset(token)
            place.end()
        self._show(lines)

    @staticmethod
    def _lines(run: Callable[[], list[str]]) -> list[str]:
        try:
            return run()
        except Exception as e:
            return [f"{type(e).__name__}: {e}"]

    def _show(self, lines: list[str]) -> None:
        self.status.value = "<br>".join(escape(line) for line in lines)
        self.record.answer = [("", "\n".join(lines))] if lines else []
        self.leave_record()
