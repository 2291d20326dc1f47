"""Which addresses a server hands over may become a link, be opened or be fetched.

A server's URLs are untrusted: a ``javascript:`` or ``data:`` link in a card runs in the
notebook's origin when clicked, and a plain ``http:`` address on the network can be read or
changed on the way. Only ``https:`` addresses with a host, and ``http:`` ones on this
machine (a local server), qualify; everything else is shown as text.

Text is not safe by being text: JupyterLab and Notebook 7 make links of what looks like an
address in a text output (a stream, an error, ``text/plain``), so ``unlinked`` breaks each
refused one in a line a server's words reach a cell with (``http[:]//…``, ``data[:]…``,
``www[.]…``): still readable, never clickable.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

__all__ = ["is_loopback", "link_problem", "linkable", "unlinked"]

_MAX_LENGTH = 8192
# What JupyterLab's text renderer takes for an address (its webLinkRegex), found here from
# the same places and as far, so that where an address it links ends is where ours does: a
# scheme of three letters or more and "://" (``ui://`` is not linked), "data:" or "www." (of
# any case here, and schemes of up to 64 characters, more than its 41: more is only safer),
# then up to a space, a control character or a quote, not ending in punctuation. JavaScript's
# \s also counts U+FEFF. The scheme is bounded: one that may run on would be tried from each
# letter of a long run to its end (quadratic on a line of server text).
_STOP = r"\s\x00-\x20\x7f-\x9f\ufeff\""
_ADDRESS = re.compile(
    rf"(?:[a-z][a-z0-9+.-]{{2,63}}://|data:|www\.)[^{_STOP}]{{2,}}[^{_STOP}'(){{}}\[\],:;.!?]", re.IGNORECASE
)
_MARKS = re.compile(r"(://)|(?<=data):|(?<=www)\.", re.IGNORECASE)


def is_loopback(host: str | None) -> bool:
    """``localhost``, 127.0.0.0/8 or ::1."""
    if not host:
        return False
    if host.lower() == "localhost" or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def link_problem(url: object) -> str | None:
    """Why ``url`` may not become a link (None when it may)."""
    if not isinstance(url, str) or not url:
        return "it is not an address"
    if len(url) > _MAX_LENGTH or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        return "it is not a well-formed address"
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return "it is not a well-formed address"
    scheme = parts.scheme.lower()
    if scheme == "https" and host:
        return None
    if scheme == "http" and is_loopback(host):
        return None
    if scheme == "http":
        return "it is a plain http: address on the network (only https:, or http: on this machine)"
    return f"only https: addresses (or http: on this machine) become links, not {scheme or 'scheme-less'}:"


def linkable(url: object) -> bool:
    return link_problem(url) is None


def unlinked(text: str) -> str:
    """``text`` (a line a server's words are in) with every address the policy refuses broken
    so that no frontend makes a link of it: ``http[:]//host``, ``file[:]///…``,
    ``data[:]text/html,…``, ``www[.]host``. An address that may be a link stays as it is
    (and whatever is inside it: a frontend links it whole, to where it says)."""
    return _ADDRESS.sub(_shown, text) if text else text


def _shown(found: re.Match[str]) -> str:
    address = found.group()
    if linkable(address):  # data: and a bare www. never are
        return address
    return _MARKS.sub(lambda m: "[:]//" if m.group(1) else f"[{m.group()}]", address)
