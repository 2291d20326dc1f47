"""Which addresses from a server may become links, be opened or be fetched (core/safety/links.py)."""

from __future__ import annotations

import pytest

from mcp_notebook.core.safety.links import is_loopback, link_problem, linkable


@pytest.mark.parametrize(
    "url",
    ["https://example.org/connect?x=1", "http://127.0.0.1:8000/cb", "http://localhost/x", "http://[::1]:9/",
     "HTTPS://EXAMPLE.ORG/"],
)  # fmt: skip
def test_https_and_loopback_http_are_links(url: str) -> None:
    assert linkable(url)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("javascript:alert(document.domain)", "not javascript:"),
        ("JaVaScRiPt:alert(1)", "not javascript:"),
        ("data:text/html,<script>alert(1)</script>", "not data:"),
        ("vbscript:msgbox(1)", "not vbscript:"),
        ("file:///etc/passwd", "not file:"),
        ("http://example.org/login", "plain http: address on the network"),
        ("http://10.0.0.5/", "plain http: address on the network"),
        ("https:///no-host", "not https:"),
        ("https://example.org/\x1b]52;c;ZXZpbA==\x07", "not a well-formed address"),
        (" https://example.org", "not a well-formed address"),
        ("//example.org/x", "not scheme-less:"),
        ("", "not an address"),
        (None, "not an address"),
        (["https://example.org"], "not an address"),
    ],
)
def test_everything_else_is_text(url: object, why: str) -> None:
    problem = link_problem(url)
    assert problem is not None and why in problem


def test_loopback_hosts() -> None:
    assert is_loopback("127.8.9.10") and is_loopback("::1") and is_loopback("LOCALHOST")
    assert not is_loopback("127.0.0.1.example.org") and not is_loopback("") and not is_loopback(None)
