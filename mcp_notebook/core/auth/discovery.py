"""Where to log in: a server's authorization server and what that server supports.

The ``resource_metadata`` of a 401's challenge, else the RFC 9728 well-known URLs (the
path-aware one first); then the authorization server's RFC 8414 / OpenID Connect metadata in
the MCP spec's order, used only when its ``issuer`` is the one it was fetched for (RFC 8414
section 3.3: a document naming another issuer may be an impersonation). A 2025-03-26 server
has neither: its own origin is the authorization server, with the default endpoints. Every
address found here is checked (links.py) before a browser opens it or a secret is sent to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from ...errors import AuthError
from ..safety.links import link_problem

__all__ = [
    "Discovery",
    "canonical_resource",
    "discover",
    "origin",
    "parse_challenge",
    "require_safe",
    "response_json",
    "same_issuer",
]

JSON = dict[str, Any]


@dataclass
class Discovery:
    """What discovery found for one server URL."""

    resource: str  # the RFC 8707 resource that tokens are asked for
    issuer: str  # as the validated metadata spells it: RFC 9207 compares the login answer's iss with it
    metadata: JSON  # the authorization server's (or the 2025-03-26 defaults)
    scopes_supported: list[str] | None = None
    prm_found: bool = False  # the server published resource metadata (2025-06-18 and later)


def parse_challenge(header: str) -> dict[str, str]:
    """The parameters of a ``WWW-Authenticate: Bearer k="v", ...`` challenge."""
    if not header:
        return {}
    _, _, rest = header.partition(" ") if header.lower().startswith("bearer") else ("", "", header)
    return {k.lower(): v if v else w for k, v, w in re.findall(r'(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))', rest)}


def canonical_resource(url: str) -> str:
    """The RFC 8707 resource for a server URL: lowercase scheme and host, no fragment, no
    trailing slash."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def require_safe(server: str, what: str, url: object) -> None:
    """Addresses from a server's metadata are opened in a browser or sent secrets: only
    https (or http on this machine; see links.py)."""
    problem = link_problem(url)
    if problem is not None:
        shown = repr(url if not isinstance(url, str) or len(url) <= 80 else url[:77] + "...")
        raise AuthError(f"server {server!r}: its {what} {shown} is refused ({problem}); not logging in")


async def discover(http: httpx.AsyncClient, server: str, url: str, challenge: dict[str, str]) -> Discovery:
    """The authorization server of the MCP server at ``url`` (named ``server`` in errors)."""
    prm: JSON | None = None
    candidates = [challenge["resource_metadata"]] if challenge.get("resource_metadata") else []
    if not candidates:
        path = urlsplit(url).path.rstrip("/")
        if path:
            candidates.append(f"{origin(url)}/.well-known/oauth-protected-resource{path}")
        candidates.append(f"{origin(url)}/.well-known/oauth-protected-resource")
    for candidate in candidates:
        require_safe(server, "resource metadata", candidate)
        prm = await _get_json(http, candidate)
        if prm is not None:
            break
    resource = canonical_resource(url)
    if prm is not None:
        servers = prm.get("authorization_servers")
        if not isinstance(servers, list) or not servers:
            raise AuthError(f"server {server!r}: its resource metadata names no authorization server")
        declared = prm.get("resource")
        if isinstance(declared, str) and declared:
            if not resource.startswith(canonical_resource(declared)):
                raise AuthError(
                    f"server {server!r}: its resource metadata is for {declared!r}, not this server; "
                    "refusing to send it a token"
                )
            resource = canonical_resource(declared)
        issuer = str(servers[0])
        require_safe(server, "authorization server", issuer)
    else:
        issuer = origin(url)  # 2025-03-26: the server's own origin
    metadata = await _metadata(http, server, issuer)
    for key in ("authorization_endpoint", "token_endpoint", "registration_endpoint"):
        if metadata.get(key) is not None:
            require_safe(server, key.replace("_", " "), metadata[key])
    scopes = prm.get("scopes_supported") if prm else None
    return Discovery(
        resource,
        str(metadata["issuer"]),
        metadata,
        scopes if isinstance(scopes, list) else None,
        prm is not None,
    )


async def _metadata(http: httpx.AsyncClient, server: str, issuer: str) -> JSON:
    parts = urlsplit(issuer)
    home, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
    if path:
        urls = [f"{home}/.well-known/oauth-authorization-server{path}",
                f"{home}/.well-known/openid-configuration{path}",
                f"{home}{path}/.well-known/openid-configuration"]  # fmt: skip
    else:
        urls = [f"{home}/.well-known/oauth-authorization-server", f"{home}/.well-known/openid-configuration"]
    for url in urls:
        data = await _get_json(http, url)
        if data is not None:
            if not same_issuer(data.get("issuer"), issuer):
                raise AuthError(
                    f"server {server!r}: the metadata at {url} does not name {issuer} as its issuer, so it may "
                    "not be that authorization server's; not logging in (its operator must fix the metadata)"
                )
            return data
    # No metadata (2025-03-26): the default endpoints at the issuer's origin.
    return {"issuer": issuer, "authorization_endpoint": f"{home}/authorize", "token_endpoint": f"{home}/token",
            "registration_endpoint": f"{home}/register"}  # fmt: skip


def same_issuer(found: object, expected: str) -> bool:
    """Whether a metadata document's ``issuer`` is the one its well-known URL was built from:
    the same string (RFC 8414 section 3.3), but for a path-less issuer with or without its
    trailing "/" (both build the same well-known URL, and URL libraries add that slash)."""
    if not isinstance(found, str):
        return False
    if found == expected:
        return True
    bare, found_bare = expected.removesuffix("/"), found.removesuffix("/")
    return bare == found_bare and urlsplit(bare).path == ""


def response_json(response: httpx.Response) -> JSON:
    """The JSON object a response holds; {} for anything else."""
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


async def _get_json(http: httpx.AsyncClient, url: str) -> JSON | None:
    try:
        # No MCP-Protocol-Version: these are OAuth documents, not MCP messages.
        response = await http.get(url, headers={"Accept": "application/json"})
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    return response_json(response) or None
