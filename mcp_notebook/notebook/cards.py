"""The cards a person answers in a cell: approval, elicitation (form and URL), sampling,
and a progress bar. With fields.py and forms.py, the modules that build ipywidgets (the
relay, relay.py, is an anywidget).

Each card has ``.widget`` to display, ``.answer`` once answered, and ``on_answer(fn)``.
Button labels are fixed (docs and tests rely on them): "Accept", "Decline", "Cancel" for
elicitation; "Approve", "Always allow", "Deny" for approval.

What a server sent goes into a card's HTML through ``escape`` (core/safety/text.py): escaped, and
its control characters shown.
"""

from __future__ import annotations

import html
import json
import math
import time
from collections.abc import Callable
from typing import Any

import ipywidgets as w
from IPython.display import display

from ..core.safety.links import link_problem
from ..core.safety.redact import redact_url
from ..core.safety.text import escape, escape_name
from ..runtime.asking.interaction import ApprovalRequest
from .fields import Field, label_of, label_width
from .places import SHOWN_IN
from .records import Record
from .relay import Relay

__all__ = [
    "ApprovalCard",
    "Card",
    "ElicitationCard",
    "LoginCard",
    "ProgressCard",
    "SamplingCard",
    "SubscriptionView",
    "UrlCard",
    "link_html",
    "walk",
]

_BOX = {"border": "1px solid #bbb", "padding": "6px 10px", "margin": "4px 0", "width": "auto"}
# Theme variables, so that both JupyterLab themes read well (the fallback: elsewhere).
_FAINT = "color:var(--jp-content-font-color2, #666);font-size:0.85em"
_HINTS = {"readOnlyHint": "read-only", "destructiveHint": "destructive", "idempotentHint": "idempotent",
          "openWorldHint": "open world", "title": "title"}  # fmt: skip
_LOGIN_BUTTON = "padding:4px 12px;border-radius:3px;background:#1976d2;color:white;text-decoration:none"
_PRE = "white-space:pre-wrap;margin:2px 0;padding:4px;background:rgba(127,127,127,0.08);border-radius:3px"


class Card:
    """A question in a cell: one answer, then the buttons go away; ``leave_record()`` then
    puts the record of the question and its answer in the card's place (records.py)."""

    def __init__(self) -> None:
        self.answer: Any = None
        self.answered = False
        self._callbacks: list[Callable[[Any], None]] = []
        self.status = w.HTML()
        self.widget: w.Box = w.VBox()
        self.record = Record("")
        self._handle: Any = None

    def show(self) -> None:
        place = SHOWN_IN.get()
        if place is not None:  # a form's Run: in the form (no record: the result replaces it)
            place.show(self.widget)
        else:
            self._handle = display(self.widget, display_id=True)

    def leave_record(self) -> None:
        """In the card's place, what was asked and answered (what a saved notebook keeps)."""
        if self._handle is not None and self.record.outcome is not None:
            self._handle.update(self.record.bundle(), raw=True)
            # Gone from the page: its widgets too (what was typed, a pasted address with its
            # code=, would otherwise live on in the kernel and in saved widget state).
            for child in walk(self.widget):
                child.close()

    def sent(self, answer: Any) -> list[tuple[str, Any]]:
        """What the record shows of an answer (after the outcome)."""
        return []

    def on_answer(self, callback: Callable[[Any], None]) -> None:
        self._callbacks.append(callback)
        if self.answered:
            callback(self.answer)

    def _finish(self, answer: Any, note: str, by: str | None = "you") -> None:
        if self.answered:
            return
        self.answer, self.answered = answer, True
        self._disable()
        self.status.value = f"<i>{escape(note)}</i>"
        self.record.settle(note, by, self.sent(answer))
        for callback in self._callbacks:
            callback(answer)

    def _disable(self) -> None:
        for child in walk(self.widget):
            if hasattr(child, "disabled"):
                child.disabled = True

    def close(self, note: str) -> None:
        """Stop asking (interrupted, cancelled by the server, timed out)."""
        if not self.answered:
            self.answered = True
            self._disable()
            self.status.value = f"<i>{escape(note)}</i>"
            self.record.settle(note, None)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def link_html(url: str, label: str, style: str = "") -> str:
    """A link that opens a new tab, or, for an address that may not become a link (see
    core/safety/links.py), a warning in its place (show the address itself as text beside it)."""
    problem = link_problem(url)
    if problem is not None:
        return f"<span style='color:#d33'>⚠ not made a link: {escape(problem)}</span>"
    href, css = html.escape(url, quote=True), html.escape(style, quote=True)
    return f"<a href='{href}' target='_blank' rel='noopener noreferrer' style='{css}'>{escape(label)}</a>"


def walk(widget: Any) -> list[Any]:
    out = [widget]
    for child in getattr(widget, "children", ()):
        out.extend(walk(child))
    return out


def _buttons(*specs: tuple[str, str, Callable[[Any], None]], disabled: tuple[str, ...] = ()) -> w.HBox:
    buttons = []
    for label, style, handler in specs:
        button = w.Button(description=label, button_style=style, disabled=label in disabled)
        button.on_click(handler)
        buttons.append(button)
    return w.HBox(buttons)


class ApprovalCard(Card):
    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request
        # One line: "destructive: yes · idempotent: no" (the server's words made readable).
        hints = " · ".join(
            f"{escape(_HINTS.get(k, k))}: <b>{escape(_yes_no(v))}</b>" for k, v in request.annotations.items()
        )
        title = f" — {escape(request.title)}" if request.title else ""
        arguments = escape(json.dumps(request.shown_arguments(), indent=2, ensure_ascii=False, default=str))
        what = f"a map{escape(request.for_rows())}, first rows below" if request.bulk else "a tool call"
        self.record = Record(
            f"🔐 Approve {'a map' + request.for_rows() if request.bulk else 'a tool call'}? {request.shown}",
            [("first rows' arguments" if request.bulk else "arguments", request.shown_arguments())],
        )
        head = w.HTML(
            f"<b>🔐 Approve {what}?</b> "
            f"<code>{escape(request.server)}.{escape_name(request.tool)}</code>{title}"
            f"<div style='font-size:0.9em;margin-top:4px'>{hints or 'no annotations'}</div>"
            f"<div style='{_FAINT}'>Annotations are hints from the server, not verified.</div>"
            f"<pre style='{_PRE}'>{arguments}</pre>"
        )
        self.widget = w.VBox(
            [
                head,
                _buttons(
                    ("Approve", "success", lambda _: self._finish("approve", "approved")),
                    (
                        "Always allow",
                        "",
                        lambda _: self._finish("always", "approved, and allowed for this kernel's life"),
                    ),
                    ("Deny", "danger", lambda _: self.deny()),
                ),
                self.status,
            ],
            layout=w.Layout(**_BOX),
        )

    def deny(self, note: str = "denied", by: str | None = "you") -> None:
        """Answer "deny", as the Deny button does; ``by=None``: nobody answered (the view
        that asked was closed, or its deadline passed)."""
        self._finish("deny", note, by)


def _yes_no(value: Any) -> str:
    return "yes" if value is True else "no" if value is False else json.dumps(value)


class ElicitationCard(Card):
    """A form built from requestedSchema; answers accept (with content), decline or cancel."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__()
        # A server's schema is untrusted: what is not of the shape the spec gives is left out.
        schema = _dict(params.get("requestedSchema"))
        listed = schema.get("required")
        required = {n for n in listed if isinstance(n, str)} if isinstance(listed, list) else set()
        fields = [(str(n), _dict(s)) for n, s in _dict(schema.get("properties")).items()]
        width = label_width([label_of(n, s, True) + " *" for n, s in fields])
        self.fields = [Field(n, s, n in required, described=True, width=width) for n, s in fields]
        head = w.HTML(f"<b>📝 {escape(server)} asks</b><div>{escape(str(params.get('message', '')))}</div>")
        self.record = Record(f"📝 {server} asks: {params.get('message', '')}")
        self.widget = w.VBox(
            [
                head,
                *[f.widget for f in self.fields],
                Relay([f.input for f in self.fields]),
                _buttons(
                    ("Accept", "success", lambda _: self._accept()),
                    ("Decline", "", lambda _: self._finish({"action": "decline"}, "declined")),
                    ("Cancel", "", lambda _: self._finish({"action": "cancel"}, "cancelled")),
                ),
                self.status,
            ],
            layout=w.Layout(**_BOX),
        )

    def sent(self, answer: Any) -> list[tuple[str, Any]]:
        content = answer.get("content") if isinstance(answer, dict) else None
        return [("sent", content)] if content is not None else []

    def _accept(self) -> None:
        if all([f.check() for f in self.fields]):  # a list: every field shows its error
            content = {f.name: v for f in self.fields if (v := f.value()[0]) is not None}
            self._finish({"action": "accept", "content": content}, "sent")
        else:
            self.status.value = "<i>fix the marked fields</i>"


class UrlCard(Card):
    """URL-mode elicitation: the full URL, opened only when the person clicks it."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__()
        url = str(params.get("url", ""))
        self.elicitation_id = params.get("elicitationId")
        safe = link_problem(url) is None
        asked = f"🌐 {server} asks you to open a page: {params.get('message', '')}"
        self.record = Record(asked, [("page", redact_url(url))])  # a ?token= in it is not kept
        opener = link_html(url, "open it in a new tab") + (" (nothing is fetched before you click)" if safe else "")
        head = w.HTML(
            f"<b>🌐 {escape(server)} asks you to open a page</b>"
            f"<div>{escape(str(params.get('message', '')))}</div>"
            f"<div><code style='word-break:break-all'>{escape(url)}</code></div>"
            f"<div>{opener}</div>"
        )
        buttons = _buttons(
            ("Accept", "success", lambda _: self._finish({"action": "accept"}, "accepted: finish in the page")),
            ("Decline", "", lambda _: self._finish({"action": "decline"}, "declined")),
            ("Cancel", "", lambda _: self._finish({"action": "cancel"}, "cancelled")),
            disabled=() if safe else ("Accept",),  # there is no page to finish the step in
        )
        self.widget = w.VBox([head, buttons, self.status], layout=w.Layout(**_BOX))

    def completed(self) -> None:
        self.status.value = "<i>the server says this step is complete</i>"


class LoginCard(Card):
    """OAuth login: a link that opens the authorization page in a new tab. The browser comes
    back to a listener on this machine; where it cannot reach one (Binder, JupyterHub,
    Colab), the address it landed on is pasted here instead."""

    def __init__(self, request: Any) -> None:
        super().__init__()
        scopes = f" · scopes: <code>{escape(request.scopes)}</code>" if request.scopes else ""
        self.record = Record(f"🔐 {request.server} needs you to log in at {request.issuer}")
        head = w.HTML(
            f"<b>🔐 {escape(request.server)} needs you to log in</b>"
            f"<div>at {escape(request.issuer)}{scopes}</div>"
            f"<div style='margin:6px 0'>{link_html(request.url, 'Log in', _LOGIN_BUTTON)} (opens a new tab)</div>"
        )
        self.pasted = w.Text(
            placeholder=f"{request.redirect_uri}?code=…",
            description="Landed on",
            layout=w.Layout(width="100%"),
            style={"description_width": "initial"},
        )
        hint = w.HTML(
            "<small>If the tab ends on a page that does not load (a remote kernel), copy its address here.</small>"
        )
        self.widget = w.VBox(
            [
                head,
                hint,
                self.pasted,
                Relay([self.pasted]),
                _buttons(
                    ("Use this address", "primary", lambda _: self._use_pasted()),
                    ("Cancel", "", lambda _: self._finish(None, "login cancelled")),
                ),
                self.status,
            ],
            layout=w.Layout(**_BOX),
        )

    def _use_pasted(self) -> None:
        text = self.pasted.value.strip()
        if "code=" not in text and "error=" not in text:
            self.status.value = "<i>that address has no code= in it: copy the whole address of the page</i>"
            return
        self._finish(text, "address pasted")

    def completed(self) -> None:
        """The browser came back to the listener: nothing to paste."""
        self._finish(None, "logged in ✓")
        self.status.value = "<i>logged in ✓</i>"


class SamplingCard(Card):
    """The server asks for an LLM completion: the person writes or edits the reply."""

    def __init__(self, server: str, params: dict[str, Any], draft: str = "", model: str = "human") -> None:
        super().__init__()
        self.model = model
        parts = []
        if params.get("systemPrompt"):
            parts.append(f"<div><b>system</b><pre style='{_PRE}'>{escape(params['systemPrompt'])}</pre></div>")
        for message in params.get("messages") or []:
            content = message.get("content") or {}
            blocks = content if isinstance(content, list) else [content]
            text = "\n".join(str(b.get("text", f"[{b.get('type')}]")) for b in blocks)
            parts.append(
                f"<div><b>{escape(str(message.get('role')))}</b><pre style='{_PRE}'>{escape(text)}</pre></div>"
            )
        facts = {k: params[k] for k in ("maxTokens", "modelPreferences", "temperature", "stopSequences") if k in params}
        head = w.HTML(
            f"<b>🤖 {escape(server)} asks for a model reply</b>{''.join(parts)}"
            f"<div style='{_FAINT}'>{escape(json.dumps(facts))}</div>"
        )
        self.record = Record(f"🤖 {server} asks for a model reply", [("messages", params.get("messages") or [])])
        self.reply = w.Textarea(value=draft, placeholder="Write the reply the server will receive",
                                layout=w.Layout(width="100%", height="6em"))  # fmt: skip
        self.widget = w.VBox(
            [
                head,
                self.reply,
                Relay([self.reply]),
                _buttons(
                    ("Approve", "success", lambda _: self._send()),
                    ("Decline", "", lambda _: self._finish(None, "declined")),
                ),
                self.status,
            ],
            layout=w.Layout(**_BOX),
        )

    def sent(self, answer: Any) -> list[tuple[str, Any]]:
        return [("reply", answer["content"]["text"])] if isinstance(answer, dict) else []

    def _send(self) -> None:
        self._finish(
            {"role": "assistant", "content": {"type": "text", "text": self.reply.value}, "model": self.model,
             "stopReason": "endTurn"},
            "sent",
        )  # fmt: skip


class ProgressCard:
    """A progress bar for a call that reports progress, with Cancel."""

    def __init__(self, server: str, tool: str, cancel: Callable[[], None]) -> None:
        self.bar = w.FloatProgress(value=0, min=0, max=1, layout=w.Layout(width="50%"))
        self.label = w.HTML(f"<code>{escape(server)}.{escape_name(tool)}</code>")
        self.button = w.Button(description="Cancel", button_style="warning")

        def on_cancel(_: Any) -> None:
            cancel()
            self.finish("cancelling…")

        self.button.on_click(on_cancel)
        self.widget = w.HBox([self.bar, self.button, self.label])
        self.prefix = f"<code>{escape(server)}.{escape_name(tool)}</code> "

    def update(self, progress: float, total: float | None, message: str | None) -> None:
        if total:
            self.bar.max = float(total)
            self.bar.value = min(float(progress), float(total))
            count = f"{progress:g}/{total:g}"
            shown = "" if message and count in message else f"{count} "  # "epoch 3/5" says it already
        else:
            self.bar.bar_style = "info"
            self.bar.value = self.bar.max  # unknown total: a full, striped-looking bar
            shown = "" if math.isnan(progress) else f"{progress:g} "  # NaN: a status (a task's), no count
        self.label.value = self.prefix + escape(f"{shown}{message or ''}")

    def finish(self, note: str) -> None:
        self.button.disabled = True
        self.label.value = self.prefix + escape(note)


class SubscriptionView:
    """What %mcp subscribe shows: a line that updates with each notification."""

    def __init__(self, server: str, uri: str) -> None:
        self.server, self.uri, self.count = server, uri, 0
        self.widget = w.HTML(self._text("waiting for updates"))

    def _text(self, note: str) -> str:
        return f"🔔 <code>{escape(self.server)}</code> <code>{escape(self.uri)}</code>: {escape(note)}"

    def updated(self, uri: str, params: dict[str, Any]) -> None:
        # Runs on the background loop; a widget's state may change from any thread.
        self.count += 1
        self.widget.value = self._text(f"{self.count} update(s), last at {time.strftime('%H:%M:%S')}")

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def __repr__(self) -> str:
        return f"<subscription {self.server} {self.uri}: {self.count} update(s)>"
