"""Which addresses from a server may become links, be opened or be fetched (core/safety/links.py)."""

from __future__ import annotations

import pytest

from mcp_notebook.core.safety.links import is_loopback, link_problem, linkable, unlinked


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


# -- text shown in a cell: what a frontend would make a link of -----------------------------


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("see http://example.com/x now", "see http[:]//example.com/x now"),
        ("read file:///etc/passwd", "read file[:]///etc/passwd"),
        ("data:text/html,<script>alert(1)</script>", "data[:]text/html,<script>alert(1)</script>"),
        ("go to www.example.com.", "go to www[.]example.com."),
        ("WWW.EXAMPLE.COM and DATA:x,1 and FILE:///xy", "WWW[.]EXAMPLE.COM and DATA[:]x,1 and FILE[:]///xy"),
        ("metadata:abc", "metadata[:]abc"),  # JupyterLab finds data: inside a word too
        ("ftp://example.com/f and xhttps://example.org/", "ftp[:]//example.com/f and xhttps[:]//example.org/"),
        # one address inside another: the first one's verdict covers all of it
        ("data:x,https://example.org/ok", "data[:]x,https[:]//example.org/ok"),
        ("http://evil.example/?u=https://example.org/", "http[:]//evil.example/?u=https[:]//example.org/"),
        # a character JavaScript counts as a space (U+FEFF) ends an address there as well
        ("https://example.org/\ufeffhttp://evil.example/", "https://example.org/\ufeffhttp[:]//evil.example/"),
    ],
)
def test_refused_addresses_in_text_are_broken(text: str, shown: str) -> None:
    assert unlinked(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        "the allowed https://example.org/ok, fine",
        "http://127.0.0.1:8000/cb and http://localhost/x",
        "https://www.example.org/a?next=http://example.com/",  # one link, to https
        "javascript:alert(1) is not a link in text (no //)",
        "metadata: none, a www. alone, scheme:// alone",
        "ui://pick/app.html: a scheme of two letters is not made a link",
        "",
    ],
)
def test_allowed_addresses_and_plain_text_stay(text: str) -> None:
    assert unlinked(text) == text


def test_a_long_run_of_letters_is_scanned_in_one_pass() -> None:
    """A kernel's line of server text may be 200,000 letters: a scheme is looked for only as
    far as one can go (JupyterLab links one of at most 41), so the line is broken at once,
    its addresses as ever (the per-test timeout catches a scan from each letter)."""
    run = "a" * 200_000
    text = f"{run} http://example.com/y {'s' * 41}://example.com/z {run}://example.com/x"
    shown = unlinked(text)
    assert shown == f"{run} http[:]//example.com/y {'s' * 41}[:]//example.com/z {run}[:]//example.com/x"
