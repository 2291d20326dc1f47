"""A tool's view (MCP Apps) in the cell that called the tool, and what the view may ask.

The view is the server's HTML, untrusted code: it runs in a sandboxed frame with an opaque
origin under the policy its resource earned (core/protocol/apps.py), and the browser side
(static/appview.js) checks each message and answers the handshake. What reaches the kernel
is answered here: ``tools/call`` of a tool of the same server whose visibility includes
``"app"``, through the approval policy (its cards show under the view); ``tools/list`` of
those tools; ``resources/read``
of that server; ``ui/open-link`` as a link the person clicks (never opened by the view; only
``https:`` or loopback ``http:``); ``ui/message`` and ``ui/update-model-context`` kept on the
handle (``r.app``) and shown as text; log messages as a line. A notebook has no conversation,
so nothing the view says goes to a model.

The view's requests run at once, each in a task whose cards share the cards area under the
view (places.OutputPlace): a card stays until it is answered or its call ends. When the frame
that asked is closed (its output cleared, its cell run again, the page closed, the view
navigated away) its approvals still waiting are denied, its other requests are cancelled
(wherever they are: looking a tool up, asking, at the server, which is told), and what it asks
after is refused. An approval a view asks for is denied unanswered after ``task_timeout`` (the
client's limit for what nobody else ends; ``APPROVAL_WAIT`` where it is None), not the
server's request timeout, which is for a server's answer, not a person's: should the "closed"
never come (a page closed abruptly), nothing waits for ever. What the notebook says under the view is HTML-escaped text,
which JupyterLab does not turn into links (its stream output would); a refused address is also
shown broken (``http[:]//…``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets as w
import traitlets

from ..core.protocol import apps
from ..core.safety.links import link_problem, unlinked
from ..core.safety.text import clipped, escape, printable, shown_name
from ..runtime.asking.interaction import VIEW_CALL, AppCall
from ..version import __version__
from .cards import ApprovalCard
from .modes import OUTSIDE_CELLS
from .places import SHOWN_IN, Line, OutputPlace

__all__ = ["APPROVAL_WAIT", "AppHandle", "AppView", "ViewPlace"]

log = logging.getLogger(__name__)
Listener = Callable[[dict[str, Any]], None]  # what on_message and on_context call

# What the notebook offers a view: the server's tools and resources, links, log messages,
# and messages and context kept for Python (text).
HOST_CAPABILITIES: dict[str, Any] = {
    "serverTools": {},
    "serverResources": {},
    "openLinks": {},
    "logging": {},
    "message": {"text": {}},
    "updateModelContext": {"text": {}, "structuredContent": {}},
}


LOG_LINES = 20  # a view's log messages shown under it; the rest go to the logger
APPROVAL_WAIT = 600.0  # seconds a view's approval waits, where task_timeout is None
# Run first in the view's document, before anything of the server's: WebRTC is the one way
# out of the frame its policy cannot close (Chromium has no CSP directive for it).
GUARD = (Path(__file__).with_name("static") / "guard.js").read_text(encoding="utf-8")


class AppView(anywidget.AnyWidget):
    """The frame a view runs in (its document already carries its policy)."""

    _esm = Path(__file__).with_name("static") / "appview.js"
    html = traitlets.Unicode("").tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    allow = traitlets.Unicode("").tag(sync=True)
    border = traitlets.Bool(True).tag(sync=True)
    version = traitlets.Unicode(__version__).tag(sync=True)
    host_capabilities = traitlets.Dict().tag(sync=True)
    host_context = traitlets.Dict().tag(sync=True)
    tool_input = traitlets.Dict().tag(sync=True)
    tool_result = traitlets.Dict(allow_none=True, default_value=None).tag(sync=True)

    def __repr__(self) -> str:
        return f"<AppView {printable(self.title)!r}>"


class AppHandle:
    """``r.app``: a call's view, and what the view said (``messages``, ``model_context``;
    ``on_message`` and ``on_context`` to act on them as they come)."""

    def __init__(self, call: AppCall) -> None:
        server, tool = call.server, call.tool
        self.server_name: str = server.name
        self.tool = str(tool.get("name"))
        link = apps.link_of(tool)
        self.uri = link.uri if link else ""
        self.messages: list[dict[str, Any]] = []  # ui/message params, as sent (untrusted)
        self.model_context: dict[str, Any] | None = None  # the last ui/update-model-context
        self._server = server
        self._listeners: list[Listener] = []
        self._context_listeners: list[Listener] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self._runs: dict[str, dict[asyncio.Task[Any], ViewPlace]] = {}  # each frame's requests running
        self._gone: set[str] = set()  # the frames closed: what they ask is refused
        self._logs = 0  # log messages the view sent
        self.view = AppView(
            html=apps.with_policy(f"<script>{GUARD}</script>{call.document.html}", call.policy),
            title=f"{self.server_name}.{self.tool}",
            allow=apps.allow_attribute(call.document.ui),
            border=call.document.prefers_border is not False,
            host_capabilities=HOST_CAPABILITIES,
            host_context={"toolInfo": {"tool": _plain(tool)}},
            tool_input=_plain(call.arguments),
            tool_result=_plain(call.result.raw),
        )
        self.notes = w.Output()  # links, messages and log lines, as text
        self.cards = w.Output()  # the cards the view's own calls bring
        self.widget = w.VBox([self.view, self.cards, self.notes])
        self.view.on_msg(self._received)
        dropped = apps.dropped_domains(call.document.ui)
        if dropped:
            self._note(
                f"{self.server_name}.{self.tool}'s view declared domains that were left out: {', '.join(dropped)}"
            )

    def __repr__(self) -> str:
        return f"<AppHandle {printable(self.server_name)}.{shown_name(self.tool)} {len(self.messages)} message(s)>"

    @property
    def pending(self) -> int:
        """How many of the view's requests are still running (an approval waiting counts)."""
        return len(self._tasks)

    def on_message(self, fn: Listener) -> Callable[[], None]:
        """Call ``fn(params)`` for each ``ui/message`` the view sends; returns a function that
        stops it."""
        return _listen(self._listeners, fn)

    def on_context(self, fn: Listener) -> Callable[[], None]:
        """Call ``fn(params)`` each time the view updates its model context (a selection, a
        state it keeps the host told of); returns a function that stops it."""
        return _listen(self._context_listeners, fn)

    # -- what the view sends (the kernel's thread) -------------------------------------

    def _received(self, _: Any, content: Any, buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        event, render = content.get("event"), str(content.get("render"))
        if event == "closed":  # a frame of this view left the page: nobody answers its cards
            self._closed(render)
            return
        if event == "dropped":
            self._note(f"{self.server_name}.{self.tool}'s view sent too many messages: {content.get('count')} dropped")
            return
        if event == "oversized":
            self._note(f"{self.server_name}.{self.tool}'s view sent a message over 1 MB: dropped")
            return
        if event == "navigated":
            self._note(f"{self.server_name}.{self.tool}'s view tried to load another page in its frame: closed")
            self._closed(render)
            return
        method, rid, params = content.get("method"), content.get("id"), content.get("params")
        if not isinstance(method, str) or not isinstance(params, dict):
            return
        if render in self._gone:  # a frame said closed: nobody is there to answer
            self._answer(rid, None, "the view was closed")
            return
        if method == "tools/call":
            self._start(rid, render, self._call(params))
        elif method == "tools/list":
            self._start(rid, render, self._list())
        elif method == "resources/read":
            self._start(rid, render, self._read(params))
        elif method == "ui/open-link":
            self._answer(rid, self._open_link(params))
        elif method == "ui/message":
            self.messages.append(params)
            self._note(f"{self.server_name}.{self.tool}'s view says: {_text(params.get('content'))}")
            self._tell(self._listeners, params, "on_message")
            self._answer(rid, {})
        elif method == "ui/update-model-context":
            self.model_context = params
            self._tell(self._context_listeners, params, "on_context")
            self._answer(rid, {})
        elif method == "notifications/message":
            self._logs += 1
            data = params.get("data")
            text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
            line = f"[{self.server_name} view {printable(str(params.get('level', 'info')))}] {text}"
            if self._logs <= LOG_LINES:
                self._note(line)
            else:  # to the logger only (docs/troubleshooting.md), once past the view's share
                log.info("%s", clipped(printable(line), 2000))
                if self._logs == LOG_LINES + 1:
                    self._note(f"… more log messages from {self.server_name}.{self.tool}'s view go to the logger only")

    def _tell(self, listeners: list[Listener], params: dict[str, Any], kind: str) -> None:
        for fn in list(listeners):
            try:
                fn(params)
            except Exception as e:  # a listener's mistake is said, not raised into the comm
                self._note(f"an {kind} listener failed: {type(e).__name__}: {printable(str(e))}")

    def _start(self, rid: Any, render: str, work: Any) -> None:
        """Run ``work`` in a task of the kernel's loop, outside any cell (its cards show here);
        ``render``: the frame that asked."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            work.close()
            self._answer(rid, None, "the notebook cannot run it now: no event loop in this kernel")
            return
        # The cards area is shared by the requests running at once: each takes away only
        # what it showed (a card another request waits on stays).
        wait = self._server.runtime.settings.task_timeout
        place = ViewPlace(self.cards, APPROVAL_WAIT if wait is None else wait)
        task = loop.create_task(self._run(rid, place, work))
        self._tasks.add(task)
        self._runs.setdefault(render, {})[task] = place

        def ended(_: asyncio.Task[Any]) -> None:
            self._tasks.discard(task)
            running = self._runs.get(render, {})
            running.pop(task, None)
            if not running:
                self._runs.pop(render, None)
            place.end()
            work.close()  # a task cancelled before it began never awaited it

        task.add_done_callback(ended)

    async def _run(self, rid: Any, place: ViewPlace, work: Any) -> None:
        OUTSIDE_CELLS.set(True)  # in this task's own context only: clicks reach its cards
        VIEW_CALL.set(True)  # a call the view makes shows no second view
        token = SHOWN_IN.set(place)
        try:
            result = await work
        except Exception as e:
            self._answer(rid, None, clipped(printable(str(e)), 300))
        else:
            self._answer(rid, result)
        finally:
            SHOWN_IN.reset(token)
            place.end()

    def _closed(self, render: str) -> None:
        """The frame ``render`` is gone, and its answers would reach nobody: the approvals
        its requests wait for are denied, its other requests cancelled (before their cards
        show, or at the server, which is told), what it asks later refused."""
        self._gone.add(render)
        for task, place in list(self._runs.pop(render, {}).items()):
            waiting = [c for c in place.cards if isinstance(c, ApprovalCard) and not c.answered]
            for card in waiting:
                asked = card.request.shown  # its name escaped, as the card shows it
                view = f"{printable(self.server_name)}.{shown_name(self.tool)}"
                log.info("%s's view was closed: %s denied", view, asked)
                card.deny("denied: the view that asked was closed", by=None)
            if not waiting:  # denied, its call ends by itself; anything else is stopped
                task.cancel()

    async def _call(self, params: dict[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise ValueError("tools/call needs a tool name and an object of arguments")
        listing = next((t for t in await self._server.alist_tools() if t.name == name), None)
        if listing is None or "app" not in listing.visibility:
            raise PermissionError(f"{self.server_name}.{name} is not a tool this server's views may call")
        result = await self._server.acall_tool(name, arguments)
        return dict(result.raw)

    async def _list(self) -> dict[str, Any]:
        """The server's tools its views may call (visibility includes ``"app"``), as listed."""
        return {"tools": [_plain(t.raw) for t in await self._server.alist_tools() if "app" in t.visibility]}

    async def _read(self, params: dict[str, Any]) -> dict[str, Any]:
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise ValueError("resources/read needs a uri")
        read = await self._server.arequest("resources/read", {"uri": uri})
        return dict(read)

    def _open_link(self, params: dict[str, Any]) -> dict[str, Any]:
        url = params.get("url")
        problem = link_problem(url)
        if problem is not None:
            shown = unlinked(str(url)[:200])
            self._note(f"{self.server_name}.{self.tool}'s view asked to open {shown!r}: not a link ({problem})")
            return {"isError": True}
        shown = escape(str(url))
        html = f"{escape(self.server_name)}.{escape(self.tool)}'s view offers a link: " \
               f'<a href="{shown}" target="_blank" rel="noopener noreferrer">{escape(str(url)[:200])}</a>'  # fmt: skip
        self.notes.append_display_data(w.HTML(html))
        return {}

    def _answer(self, rid: Any, result: Any, error: str | None = None) -> None:
        if rid is None:
            return
        if error is not None:
            self.view.send({"id": rid, "error": {"code": -32000, "message": error}})
        else:
            self.view.send({"id": rid, "result": result if result is not None else {}})

    def _note(self, text: str) -> None:
        log.info("%s", printable(text))
        # Escaped HTML, not stream output (places.Line): no address the view sent becomes a link.
        self.notes.append_display_data(Line(clipped(printable(text), 2000)))


class ViewPlace(OutputPlace):
    """The cards area under a view as one of its requests shows there (nothing cleared: the
    other requests' cards stay); an approval it asks is denied if nobody answers within
    ``deadline`` seconds (``task_timeout``)."""

    def __init__(self, output: w.Output, deadline: float) -> None:
        super().__init__(output, clear=False)
        self.deadline = deadline
        self._timers: list[asyncio.TimerHandle] = []

    def asking(self, card: Any) -> None:
        super().asking(card)
        if isinstance(card, ApprovalCard):
            self._timers.append(asyncio.get_running_loop().call_later(self.deadline, self._expired, card))

    def _expired(self, card: ApprovalCard) -> None:
        note = f"denied: nobody answered within {self.deadline:g} s"
        if not card.answered:  # said where the card was: it goes with its call
            self.print(printable(f"{card.request.shown}: {note}"))
        card.deny(note, by=None)

    def end(self) -> None:
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        super().end()


def _listen(listeners: list[Listener], fn: Listener) -> Callable[[], None]:
    listeners.append(fn)
    return lambda: listeners.remove(fn) if fn in listeners else None


def _text(content: Any) -> str:
    """What a ui/message says, as text (its text blocks; a single block as the spec shows)."""
    blocks = content if isinstance(content, list) else [content]
    texts = [str(b["text"]) for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return clipped(printable(" ".join(texts)), 2000) if texts else "(no text)"


def _plain(value: Any) -> Any:
    """JSON data as the frame gets it (no objects a comm cannot send)."""
    return json.loads(json.dumps(value, default=str))
