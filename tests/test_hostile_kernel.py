"""A hostile server in a real kernel: what it sends shows as data, never as live markup.

Every widget state and every HTML output the cells produced is scanned: a link may only
point at https (or http on this machine)."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kernels import Kernel, text_of

HOSTILE = Path(__file__).resolve().parent / "servers" / "hostile_links.py"
HREF = re.compile(r"""(?:href|src)\s*=\s*["']?\s*([^"'\s>]+)""", re.IGNORECASE)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    k = Kernel("python3", cwd=str(tmp_path_factory.mktemp("hostile")))
    try:
        text = text_of(k.run(f"%load_ext mcp_notebook\n%mcp add hostile -- {sys.executable} {HOSTILE}"))
        assert "✓ hostile" in text, text
        yield k
    finally:
        k.close()


def live_links(kernel: Kernel, outputs: list[dict[str, Any]]) -> list[str]:
    """Addresses that were made links (or sources) anywhere in the cells' HTML or widgets."""
    html = [str(state.get("value", "")) for state in kernel.widgets.values()]
    html += [o.get("data", {}).get("text/html", "") for o in outputs if o["type"] in ("display_data", "execute_result")]
    return [m.group(1) for text in html for m in HREF.finditer(text) if not m.group(1).startswith("data:image/")]


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
    text = text_of(outputs)
    # The page is shown as a card or, where this kernel cannot click one, printed; either way
    # with the warning and not as a link.
    assert "not a web address to open" in text and ("not made a link" in text or "do not open it" in text)
    assert live_links(kernel, outputs) == []


def test_resource_links_to_scripts_are_text(kernel: Kernel) -> None:
    outputs = kernel.run("%mcp call hostile.link")
    assert "javascript:alert(document.domain)" in text_of(outputs)
    assert live_links(kernel, outputs) == []


def test_a_javascript_login_page_is_refused(kernel: Kernel) -> None:
    from test_remote import free_port, running

    port = free_port()
    with running([sys.executable, str(HOSTILE), "--oauth", str(port)], port):
        outputs = kernel.run(f"%mcp add evil http://127.0.0.1:{port}/mcp")
    text = text_of(outputs)
    assert "AuthError: server 'evil': its authorization endpoint 'javascript:alert(document.domain)' is refused" in text
    assert "not logging in" in text
    assert not any("needs you to log in" in str(s.get("value")) for s in kernel.widgets.values())  # no login card
    assert live_links(kernel, outputs) == []
