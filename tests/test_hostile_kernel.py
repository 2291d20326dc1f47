"""A hostile server in a real kernel: what it sends shows as data, never as live markup.

Every widget state and every HTML output the cells produced is parsed as HTML: a link may
only point at https (or http on this machine), no element or attribute a server wrote is
live (its markup shows escaped), and no control character it sent is left raw. A flood of
notifications prints a bounded number of lines and updates a progress bar a few times."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from support.kernels import Kernel, kernel_with, text_of
from support.processes import free_port, running

from mcp_notebook.core.safety.text import CONTROL

pytestmark = pytest.mark.kernel

HOSTILE = Path(__file__).resolve().parent / "servers" / "hostile_links.py"
HOSTILE_TEXT = Path(__file__).resolve().parent / "servers" / "hostile_text.py"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    setup = f"%load_ext mcp_notebook\n%mcp add hostile -- {sys.executable} {HOSTILE}"
    with kernel_with("python3", tmp_path_factory.mktemp("hostile"), setup, ["hostile"]) as k:
        yield k


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def html_of(kernel: Kernel, outputs: list[dict[str, Any]]) -> list[str]:
    """The cells' HTML outputs and every widget's value (an HTML widget's value is HTML)."""
    html = [str(state.get("value", "")) for state in kernel.widgets.values()]
    return html + [
        o.get("data", {}).get("text/html", "") for o in outputs if o["type"] in ("display_data", "execute_result")
    ]


def tags(kernel: Kernel, outputs: list[dict[str, Any]]) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    for text in html_of(kernel, outputs):
        parser.feed(text)
        parser.close()
        parser.reset()
    return parser.tags


def live_links(kernel: Kernel, outputs: list[dict[str, Any]]) -> list[str]:
    """Addresses that were made links (or sources) anywhere in the cells' HTML or widgets."""
    found = [attrs.get(k) or "" for _, attrs in tags(kernel, outputs) for k in ("href", "src") if k in attrs]
    return [url for url in found if not url.startswith("data:image/")]


def live_markup(kernel: Kernel, outputs: list[dict[str, Any]]) -> list[str]:
    """Elements and attributes no rendering of ours makes: they came from a server."""
    bad = [tag for tag, _ in tags(kernel, outputs) if tag in ("script", "iframe", "object", "embed")]
    return bad + [f"{tag} {name}" for tag, attrs in tags(kernel, outputs) for name in attrs if name.startswith("on")]


def test_a_javascript_url_elicitation_is_text_not_a_link(kernel: Kernel) -> None:
    cell = kernel.start("r = %mcp call hostile.visit\nr.text")
    kernel.wait_for_text("not made a link")
    kernel.wait_for_widget("Decline")
    accept = next(s for s in kernel.widgets.values() if s.get("description") == "Accept")
    assert accept.get("disabled") is True  # there is no page to finish the step in
    kernel.click("Decline")
    outputs = kernel.outputs(cell)
    assert "action: decline" in text_of(outputs)
    assert live_links(kernel, outputs) == []
    assert any("javascript:alert(document.domain)" in str(s.get("value")) for s in kernel.widgets.values())


def test_a_javascript_page_for_a_tool_is_text_not_a_link(kernel: Kernel) -> None:
    outputs = kernel.run("%mcp call hostile.needs_page")
    text = text_of(outputs) + " ".join(str(state.get("value")) for state in kernel.widgets.values())
    # The page is shown as a card or, where this kernel cannot click one, printed; either way
    # with the warning and not as a link.
    assert "not a web address to open" in text and ("not made a link" in text or "do not open it" in text)
    assert live_links(kernel, outputs) == []


def test_resource_links_to_scripts_are_text(kernel: Kernel) -> None:
    outputs = kernel.run("%mcp call hostile.link")
    assert "javascript:alert(document.domain)" in text_of(outputs)
    assert live_links(kernel, outputs) == []


def test_a_javascript_login_page_is_refused(kernel: Kernel) -> None:
    port = free_port()
    with running([sys.executable, str(HOSTILE), "--oauth", str(port)], port):
        outputs = kernel.run(f"%mcp add evil http://127.0.0.1:{port}/mcp")
    text = text_of(outputs)
    assert "AuthError: server 'evil': its authorization endpoint 'javascript:alert(document.domain)' is refused" in text
    assert "not logging in" in text
    assert not any("needs you to log in" in str(s.get("value")) for s in kernel.widgets.values())  # no login card
    assert live_links(kernel, outputs) == []


# -- a server's text, and floods (tests/servers/hostile_text.py) -----------------------------


@pytest.fixture(scope="module")
def evil(kernel: Kernel) -> str:
    text = text_of(kernel.run(f"%mcp add evil -- {sys.executable} {HOSTILE_TEXT}"))
    assert "✓ evil" in text, text
    return "evil"


def texts(kernel: Kernel, outputs: list[dict[str, Any]]) -> list[str]:
    """Every text the kernel sent: outputs, errors (not the traceback our own colours are in)
    and the widgets' strings (values, labels, choices)."""
    out = []
    for o in outputs:
        out += [o.get("text", ""), o.get("evalue", "")] + [str(v) for v in o.get("data", {}).values()]
    for state in kernel.widgets.values():
        for key in ("value", "description", "placeholder", "tooltip"):
            out.append(str(state.get(key, "")))
        out += [str(label) for label in state.get("_options_labels", ())]
    return out


def test_a_servers_text_is_escaped_everywhere(kernel: Kernel, evil: str) -> None:
    kernel.forget_widgets()  # the cards of the tests above
    outputs: list[dict[str, Any]] = []
    for code in ("%mcp status evil", "%mcp tools evil", "%mcp resources evil", "%mcp templates evil",
                 "%mcp prompts evil", "%mcp list", "%mcp call evil.text", "%mcp call evil.tool_error",
                 "%mcp call evil.fail", "%mcp call evil.logs", "%mcp call evil.progress",
                 "%mcp read evil hostile://doc", "%mcp prompt evil.greet who=me", "%mcp logs evil"):  # fmt: skip
        outputs += kernel.run(code)
    for code, button in (("%mcp call evil.ask", "Decline"), ("%mcp call evil.sample", "Decline"),
                         ("%mcp call evil.drop", "Deny")):  # fmt: skip
        cell = kernel.start(code)
        kernel.click(button)
        outputs += kernel.outputs(cell)
    outputs += kernel.run("%mcp call evil.page")  # after the clicks: its card has a Decline button too
    assert live_markup(kernel, outputs) == []
    # The one link: the page's own https address, where its card is shown (an awaited call on ipykernel 7).
    assert live_links(kernel, outputs) in ([], ["https://example.org/verify"])
    assert not any(state.get("description_allow_html") for state in kernel.widgets.values())
    raw = [c for text in texts(kernel, outputs) for c in CONTROL.findall(text)]
    assert raw == [], f"{len(raw)} raw control characters: {sorted(set(raw))}"
    # Each string was shown, escaped, with its control characters visible.
    html = "\n".join(html_of(kernel, outputs))
    for label in ("server", "instructions", "text description", "resource title", "template description",
                  "prompt description", "result", "tool error", "read", "prompt message",
                  "stderr", "logger", "ask", "field help", "sample", "system", "drop title"):  # fmt: skip
        assert f"{label}:\\x1b[2J\\x1b[3J\\x1b[H" in html, label
    assert html.count("&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;") >= 19
    labels = "\n".join(texts(kernel, []))
    assert "field title:\\x1b[2J" in labels and "choice name:\\x1b[2J" in labels  # a form's labels and choices
    for label in ("error", "log error"):  # an error, a log line
        assert f"{label}:\\x1b[2J" in text_of(outputs), label
    # The page: a card where the cell can be clicked (an awaited call on ipykernel 7), else printed.
    assert "page:\\x1b[2J" in text_of(outputs) + html


@pytest.mark.parametrize(
    "code",
    ["%mcp call evil.flood_logs count=300", "r = get_client()['evil'].call_tool('flood_logs', {'count': 300})"],
    ids=["awaited", "blocking"],
)
def test_a_log_flood_prints_a_few_lines_and_keeps_them_all(kernel: Kernel, evil: str, code: str) -> None:
    kernel.run("from mcp_notebook import get_client")
    outputs = kernel.run(code)
    lines = [line for o in outputs if o["type"] == "stream" for line in o["text"].splitlines()]
    assert lines[:50] == [f"[evil info] flood {i}" for i in range(50)]
    assert lines[50:] == ["… 250 more log messages from evil not shown here: %mcp logs evil --lines 300"]
    logs = next(o["data"]["text/plain"] for o in kernel.run("%mcp logs evil --lines 300") if o.get("data"))
    assert [line for line in logs.splitlines() if "flood" in line] == [f"[info] flood {i}" for i in range(300)]


@pytest.mark.parametrize(
    "code",
    [
        "%mcp call evil.flood_progress count=10000",
        "r = get_client()['evil'].call_tool('flood_progress', {'count': 10000})\nr.text",
    ],
    ids=["awaited", "blocking"],
)
def test_a_progress_flood_updates_its_bar_a_few_times(kernel: Kernel, evil: str, code: str) -> None:
    kernel.run("from mcp_notebook import get_client")
    before = set(kernel.widgets)
    outputs = kernel.run(code)
    assert "sent 10000 progress notifications" in text_of(outputs)
    new = [comm_id for comm_id in kernel.widgets if comm_id not in before]
    (bar,) = [kernel.widgets[c] for c in new if kernel.widgets[c].get("_model_name") == "FloatProgressModel"]
    assert bar["value"] == bar["max"] == 10000  # the last state is shown
    assert any(str(kernel.widgets[c].get("value", "")).endswith("evil.flood_progress</code> done") for c in new)
    updates = sum(kernel.updates.get(c, 0) for c in new)
    assert updates < 100, f"{updates} widget updates for 10,000 progress notifications"


@pytest.fixture(scope="module")
def evil_http(kernel: Kernel) -> Iterator[int]:
    """The same server over Streamable HTTP (its ``hold`` waits for a ``release`` call)."""
    proc = subprocess.Popen([sys.executable, str(HOSTILE_TEXT), "--http"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().split()[-1])
        text = text_of(kernel.run(f"%mcp add evilhttp http://127.0.0.1:{port}/mcp"))
        assert "✓ evilhttp" in text, text
        yield port
    finally:
        proc.kill()
        proc.wait()


def release(port: int) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "release"}}
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp", json.dumps(call).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert b"released" in response.read()


@pytest.mark.parametrize(
    "code",
    ["%mcp call evilhttp.hold count=5", "r = get_client()['evilhttp'].call_tool('hold', {'count': 5})\nr.text"],
    ids=["awaited", "blocking"],
)
def test_progress_held_back_shows_while_the_call_still_runs(kernel: Kernel, evil_http: int, code: str) -> None:
    kernel.run("from mcp_notebook import get_client")
    before = set(kernel.widgets)

    def bar_at(value: float) -> bool:
        return any(
            state.get("_model_name") == "FloatProgressModel" and state.get("value") == value
            for comm_id, state in kernel.widgets.items()
            if comm_id not in before
        )

    cell = kernel.start(code)
    kernel.wait_until(lambda: bar_at(1))  # the first notification shows at once
    release(evil_http)
    # The other four come at once, just after: held back, and shown a moment later while
    # the server still holds the call (it waits for the second release).
    kernel.wait_until(lambda: bar_at(5))
    release(evil_http)
    assert "held" in text_of(kernel.outputs(cell))
