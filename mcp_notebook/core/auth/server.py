"""Talking to an authorization server: registering this client, the authorization URL and
its answer, and the token endpoint.

The records kept between logins (``Tokens``, ``Registration``) hold secrets: their reprs
show none, and no error here quotes one.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from ...errors import AuthError
from ..safety.detect import mask_secrets
from ..safety.links import is_loopback
from ..safety.redact import Mask, sent_secrets
from .assertion import ASSERTION_TYPE
from .discovery import Discovery, origin, response_json
from .dpop import DPoP

__all__ = [
    "Registration",
    "Tokens",
    "authorization_url",
    "code_from",
    "pkce",
    "redirect_uri",
    "register",
    "token_request",
]

JSON = dict[str, Any]


@dataclass
class Tokens:
    access_token: str
    refresh_token: str | None = None
    expires_at: float | None = None
    scope: str | None = None
    lifetime: float | None = None  # seconds the token was issued for
    token_type: str = "Bearer"  # "DPoP": bound to this client's key, sent only with a proof

    def fresh(self) -> bool:
        """Not about to expire: a minute's margin, or a quarter of a short lifetime."""
        if self.expires_at is None:
            return True
        margin = min(60.0, (self.lifetime or 240.0) / 4)
        return time.time() < self.expires_at - margin

    def to_json(self) -> JSON:
        return {"access_token": self.access_token, "refresh_token": self.refresh_token,
                "expires_at": self.expires_at, "scope": self.scope, "lifetime": self.lifetime,
                "token_type": self.token_type}  # fmt: skip

    @classmethod
    def from_response(cls, data: JSON, previous: Tokens | None = None) -> Tokens:
        """The token endpoint's answer; what it leaves out (a new refresh token, the scope)
        stays as it was."""
        token = data.get("access_token")
        if not isinstance(token, str) or not token:
            raise AuthError("the token endpoint answered without an access_token")
        expires = data.get("expires_in")
        return cls(
            access_token=token,
            refresh_token=data.get("refresh_token") or (previous.refresh_token if previous else None),
            expires_at=time.time() + float(expires) if isinstance(expires, (int, float)) else None,
            scope=data.get("scope") or (previous.scope if previous else None),
            lifetime=float(expires) if isinstance(expires, (int, float)) else None,
            token_type=_token_type(data, previous),
        )

    def __repr__(self) -> str:
        return "<tokens ***>"


def _token_type(data: JSON, previous: Tokens | None) -> str:
    """DPoP or Bearer; an answer that does not say (a refresh may not) keeps what it was."""
    given = data.get("token_type")
    if not isinstance(given, str) or not given:
        return previous.token_type if previous is not None else "Bearer"
    return "DPoP" if given.lower() == "dpop" else "Bearer"


@dataclass
class Registration:
    """This client at one authorization server: its id, secret and how it sends them."""

    client_id: str
    client_secret: str | None = None
    auth_method: str = "none"
    redirect_uri: str | None = None

    def __repr__(self) -> str:
        return f"<client {self.client_id!r} {self.auth_method}>"


def pkce() -> tuple[str, str]:
    """A PKCE verifier and its S256 challenge."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def redirect_uri(port: int = 0) -> str:
    """The loopback redirect URI; port 0: one free now."""
    if not port:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
    return f"http://127.0.0.1:{port}/callback"


def authorization_url(discovery: Discovery, query: dict[str, str]) -> str:
    """Where the person's browser goes to log in."""
    endpoint = discovery.metadata.get("authorization_endpoint") or f"{origin(discovery.issuer)}/authorize"
    return f"{endpoint}{'&' if '?' in endpoint else '?'}{urlencode(query)}"


def code_from(server: str, landed: str, state: str, issuer: str, iss_required: bool = False) -> str:
    """The authorization code in the URL the browser landed on, once its ``state`` matches
    and its RFC 9207 ``iss`` is ``issuer`` (the validated metadata's, compared as plain
    strings: no normalisation). ``iss_required``: the metadata promised ``iss``. Nothing in
    an answer that fails these checks is used or shown, its ``error`` included."""
    params = {k: v[0] for k, v in parse_qs(urlsplit(landed).query).items()}
    if params.get("state") != state:
        raise AuthError(f"server {server!r}: the login answer's state does not match; try logging in again")
    if "iss" in params and params["iss"] != issuer:
        raise AuthError(
            f"server {server!r}: the login answer names another issuer than {issuer} (RFC 9207), so it did not "
            "come from that authorization server; not using it (log in again, and only through the link shown)"
        )
    if "iss" not in params and iss_required:
        raise AuthError(
            f"server {server!r}: the login answer lacks the iss its authorization server ({issuer}) promises "
            "(RFC 9207); not using it (log in again, and only through the link shown)"
        )
    if "error" in params:
        why = mask_secrets(params.get("error_description") or params["error"])
        raise AuthError(f"server {server!r}: the authorization server refused the login: {why}")
    if "code" not in params:
        raise AuthError(f"server {server!r}: the login answer has no authorization code; try again")
    return params["code"]


async def register(
    http: httpx.AsyncClient, server: str, endpoint: str, supported: list[str], client_name: str, redirect: str
) -> Registration:
    """Dynamic Client Registration (RFC 7591) at ``endpoint``."""
    method = "none" if "none" in supported else supported[0]
    body = {
        # OpenID Connect registration takes a missing application_type as "web", which
        # refuses loopback redirect URIs: say "native" for those (SEP-837).
        "application_type": "native" if is_loopback(urlsplit(redirect).hostname) else "web",
        "client_name": client_name,
        "redirect_uris": [redirect],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
    }
    try:
        response = await http.post(endpoint, json=body)
    except httpx.HTTPError as e:
        raise AuthError(f"cannot reach the registration endpoint {endpoint}: {type(e).__name__}") from None
    data = response_json(response)
    if response.status_code >= 400 or "client_id" not in data:
        why = data.get("error_description") or data.get("error") or f"HTTP {response.status_code}"
        raise AuthError(f"server {server!r}: client registration was refused: {mask_secrets(str(why))}")
    return Registration(
        str(data["client_id"]),
        data.get("client_secret"),
        str(data.get("token_endpoint_auth_method") or method),
        redirect,
    )


Signer = Callable[[str], str]  # a client assertion (private_key_jwt) for an audience


async def token_request(
    http: httpx.AsyncClient,
    server: str,
    discovery: Discovery,
    client: Registration,
    form: dict[str, str],
    sign: Signer | None = None,
    *,
    endpoint: str | None = None,
    step: str | None = None,
    dpop: DPoP | None = None,
) -> JSON:
    """POST ``form`` to the token endpoint (or ``endpoint``: another party's, such as an
    identity provider's), authenticated as ``client`` (``sign``: with a fresh assertion for
    the issuer, private_key_jwt); its JSON answer. ``step`` names the request in an error."""
    endpoint = endpoint or discovery.metadata.get("token_endpoint") or f"{origin(discovery.issuer)}/token"
    what = step or f"the {form.get('grant_type', 'token')} token request"

    async def post() -> httpx.Response:
        # Each attempt signs afresh: an assertion's jti and a DPoP proof are for one request.
        assertion = sign(discovery.issuer) if sign is not None and client.auth_method == "private_key_jwt" else None
        return await _post_token(http, endpoint, client, form, assertion, dpop, what)

    async def send() -> httpx.Response:
        response = await post()
        nonce = response.headers.get("dpop-nonce")
        if dpop is not None and nonce:
            dpop.remember(endpoint, nonce)  # for this request's retry, and the next request
            if response.status_code in (400, 401) and _error(response) == "use_dpop_nonce":
                return await post()
        return response

    response = await send()
    if response.status_code in (400, 401) and client.auth_method == "client_secret_basic":
        # A pre-registered client's method is a guess from the server's list: a server
        # that wanted the secret in the form says so with a 400/401. Try that once.
        client.auth_method = "client_secret_post"
        response = await send()
    data = response_json(response)
    if response.status_code >= 400 or "error" in data:
        why = data.get("error_description") or data.get("error") or f"HTTP {response.status_code}"
        raise AuthError(f"server {server!r}: {what} was refused: {_sent(client, form)(mask_secrets(str(why)))}")
    return data


# Form fields that carry a secret of ours (RFC 6749, 7521, 7523, 8693).
_SECRET_FIELDS = ("client_secret", "client_assertion", "assertion", "refresh_token", "code", "code_verifier",
                  "subject_token", "actor_token", "password")  # fmt: skip


def _sent(client: Registration, form: dict[str, str]) -> Mask:
    """What a token request sent that is secret, as an authorization server may quote it
    back in an error: its secret form fields and the client's Basic credentials."""
    values = [v for k, v in form.items() if k in _SECRET_FIELDS]
    if client.client_secret:
        basic = base64.b64encode(f"{client.client_id}:{client.client_secret}".encode()).decode()
        values += [client.client_secret, basic]
    return sent_secrets(values=values)


def _error(response: httpx.Response) -> object:
    try:
        return response.json().get("error")
    except (ValueError, AttributeError):
        return None


async def _post_token(
    http: httpx.AsyncClient,
    endpoint: str,
    client: Registration,
    form: dict[str, str],
    assertion: str | None,
    dpop: DPoP | None,
    what: str,
) -> httpx.Response:
    headers = {"Accept": "application/json"}
    if dpop is not None:
        headers["DPoP"] = dpop.proof("POST", endpoint)
    auth = httpx.Auth()  # sends no credentials (what httpx makes of auth=None)
    if client.auth_method == "client_secret_basic" and client.client_secret:
        auth = httpx.BasicAuth(client.client_id, client.client_secret)
    else:
        form = {**form, "client_id": client.client_id} if client.client_id else dict(form)
        if client.auth_method == "client_secret_post" and client.client_secret:
            form["client_secret"] = client.client_secret
        if assertion is not None:
            form.update(client_assertion_type=ASSERTION_TYPE, client_assertion=assertion)
    try:
        return await http.post(endpoint, data=form, headers=headers, auth=auth)
    except httpx.HTTPError as e:
        raise AuthError(f"{what}: cannot reach {endpoint}: {type(e).__name__}") from None
