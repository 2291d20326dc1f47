"""Which addresses a server hands over may become a link, be opened or be fetched.

A server's URLs are untrusted: a ``javascript:`` or ``data:`` link in a card runs in the
notebook's origin when clicked, and a plain ``http:`` address on the network can be read or
changed on the way. Only ``https:`` addresses with a host, and ``http:`` ones on this
machine (a local server), qualify; everything else is shown as text.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

__all__ = ["is_loopback", "link_problem", "linkable"]

_MAX_LENGTH = 8192


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
