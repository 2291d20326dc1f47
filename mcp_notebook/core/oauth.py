"""OAuth 2.1 for remote servers, as the MCP 2025-11-25 authorization spec says.

On a 401: find the authorization server (the ``resource_metadata`` of the challenge, else
the RFC 9728 well-known URLs; then RFC 8414 / OpenID metadata in the spec's order; for
2025-03-26 servers the server's own origin and default endpoints), get a client id
(pre-registered, a Client ID Metadata Document, or Dynamic Client Registration), then the
authorization-code flow with PKCE S256, ``state`` and the RFC 8707 ``resource``. The person's
part (opening the authorization URL, landing on the redirect) is a ``login`` callable the
runtime supplies. Tokens are refreshed before they expire and on a 401; on a 403
``insufficient_scope`` the flow runs again with the larger scope set.

Tokens and client secrets never appear in reprs, errors or logs.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import httpx

from ..errors import AuthError, LoginRequired
from .links import link_problem
from .tokens import TokenStore

JSON = dict[str, Any]


@dataclass
class OAuthSettings:
    """How this client identifies itself. ``client_id``/``client_secret``: a pre-registered
    client; ``client_metadata_url``: a Client ID Metadata Document (an https URL);
    ``scopes``: ask for these instead of what the server suggests; ``redirect_port``: a
    fixed loopback port for servers that need an exact redirect URI (0: any free port)."""

    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    scopes: str | None = None
    redirect_port: int = 0
    client_name: str = "mcp-notebook"

    def __repr__(self) -> str:
        secret = ", client_secret=***" if self.client_secret else ""
        return f"OAuthSettings(client_id={self.client_id!r}{secret}, scopes={self.scopes!r})"


@dataclass
class LoginRequest:
    """What a person needs to log in: open ``url``; the browser lands on ``redirect_uri``."""

    server: str
    url: str
    redirect_uri: str
    issuer: str
    scopes: str | None
    callback: Any = None  # set by the runtime: a loopback listener, if it started one

    def __repr__(self) -> str:
        return f"<LoginRequest {self.server!r} issuer={self.issuer!r} scopes={self.scopes!r}>"


Login = Callable[[LoginRequest], Awaitable[str]]  # returns the URL the browser was sent to


@dataclass
class _Tokens:
    access_token: str
    refresh_token: str | None = None
    expires_at: float | None = None
    scope: str | None = None
    lifetime: float | None = None  # seconds the token was issued for

    def fresh(self) -> bool:
        """Not about to expire: a minute's margin, or a quarter of a short lifetime."""
        if self.expires_at is None:
            return True
        margin = min(60.0, (self.lifetime or 240.0) / 4)
        return time.time() < self.expires_at - margin

    def to_json(self) -> JSON:
        return {"access_token": self.access_token, "refresh_token": self.refresh_token,
                "expires_at": self.expires_at, "scope": self.scope, "lifetime": self.lifetime}  # fmt: skip

    @classmethod
    def from_response(cls, data: JSON, previous: _Tokens | None = None) -> _Tokens:
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
        )

    def __repr__(self) -> str:
        return "<tokens ***>"


@dataclass
class _Client:
    client_id: str
    client_secret: str | None = None
    auth_method: str = "none"
    redirect_uri: str | None = None

    def __repr__(self) -> str:
        return f"<client {self.client_id!r} {self.auth_method}>"


@dataclass
class _Discovery:
    resource: str
    issuer: str
    metadata: JSON
    scopes_supported: list[str] | None = None
    prm_found: bool = False


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


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


class OAuth:
    """Authorization for one server URL. ``header()`` before each request; ``unauthorized``
    on a 401 and ``insufficient_scope`` on a 403 (both return when the next try may work)."""

    max_tries = 3  # logins or step-ups for one request before its 401/403 is shown

    def __init__(
        self,
        server: str,
        url: str,
        store: TokenStore,
        login: Login,
        settings: OAuthSettings | None = None,
        http: httpx.AsyncClient | None = None,
        can_login: Callable[[], bool] = lambda: True,
        verify: Any = True,
    ) -> None:
        self.verify = verify  # certificate checks for the authorization server (as for the MCP server)
        self.server = server
        self.can_login = can_login  # False where nobody can log in (headless): fail before any registration
        self.url = url
        self.store = store
        self.login = login
        self.settings = settings or OAuthSettings()
        self._http = http
        self._tokens: _Tokens | None = None
        self._client: _Client | None = None
        self._discovery: _Discovery | None = None
        self._lock = asyncio.Lock()
        self._loaded = False
        self.issuer: str | None = None

    def __repr__(self) -> str:
        state = "logged in" if self._tokens else "not logged in"
        return f"<OAuth {self.server!r} {state}>"

    @property
    def logged_in(self) -> bool:
        self._load_any()
        return self._tokens is not None

    # -- what a transport calls ------------------------------------------------------------

    def fresh(self) -> bool:
        """No login yet, or a token that is not about to expire (nothing to refresh now)."""
        self._load_any()
        return self._tokens is None or self._tokens.fresh()

    def header_now(self) -> dict[str, str]:
        """The Authorization header as things stand, without network I/O (may be stale)."""
        self._load_any()
        return {"Authorization": f"Bearer {self._tokens.access_token}"} if self._tokens else {}

    async def header(self) -> dict[str, str]:
        """The Authorization header, refreshed first if the token is about to expire."""
        self._load_any()
        tokens = self._tokens
        if tokens is not None and not tokens.fresh() and tokens.refresh_token:
            async with self._lock:
                if self._tokens is tokens:
                    await self._refresh_or_forget()
        return self.header_now()

    async def unauthorized(self, challenge_header: str, sent: dict[str, str]) -> None:
        """A 401: refresh the token if that can work, else log in (the person's part)."""
        async with self._lock:
            if sent.get("Authorization") != self.header_now().get("Authorization"):
                return  # another request already got a new token
            challenge = parse_challenge(challenge_header)
            if self._tokens is not None and self._tokens.refresh_token and await self._refresh_or_forget():
                return
            await self._authorize(challenge, None)

    async def try_refresh(self) -> bool:
        """Refresh without asking anyone; False when that cannot work (a login is needed)."""
        async with self._lock:
            self._load_any()
            if self._tokens is None or not self._tokens.refresh_token:
                return False
            return await self._refresh_or_forget()

    async def insufficient_scope(self, challenge_header: str) -> None:
        """A 403 with ``error="insufficient_scope"``: authorize again for the larger set."""
        challenge = parse_challenge(challenge_header)
        async with self._lock:
            have = set((self._tokens.scope if self._tokens else None) or (self._scopes_asked or "").split())
            want = have | set(challenge.get("scope", "").split())
            await self._authorize(challenge, " ".join(sorted(want)) or None)

    def forget(self) -> None:
        """Log out: drop the tokens and the client registration (here and in the store)."""
        self._load_any()
        if self.issuer:
            self.store.delete(self._key(self.issuer))
        self._tokens = self._client = None

    async def ensure_login(self, scopes: str | None = None) -> None:
        """Log in now (``%mcp login``), whether or not the server has asked yet."""
        async with self._lock:
            await self._authorize({}, scopes)

    # -- the flow ----------------------------------------------------------------------

    _scopes_asked: str | None = None

    async def _authorize(self, challenge: dict[str, str], scopes: str | None) -> None:
        http = self._http_client()
        discovery = await self._discover(http, challenge)
        self._discovery = discovery
        if not self.can_login():
            raise LoginRequired(
                f"server {self.server!r} needs a login ({discovery.issuer}) and nobody can log in here; log in "
                f"from a notebook (%mcp login {self.server}) or a terminal (server.login()), then run this again"
            )
        meta = discovery.metadata
        methods = meta.get("code_challenge_methods_supported")
        if discovery.prm_found and (not isinstance(methods, list) or "S256" not in methods):
            raise AuthError(
                f"server {self.server!r}: its authorization server ({discovery.issuer}) does not support PKCE "
                "with S256, which the MCP spec requires; not logging in"
            )
        if scopes is None:
            scopes = self.settings.scopes or challenge.get("scope")
            if scopes is None and discovery.scopes_supported:
                scopes = " ".join(discovery.scopes_supported)
        self._scopes_asked = scopes
        client = await self._client_for(http, discovery)
        verifier, code_challenge = _pkce()
        state = secrets.token_urlsafe(24)
        query = {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": client.redirect_uri or self._redirect_uri(),
            "state": state,
            "code_challenge": code_challenge,
            "code_challenge_method": "S256",
            "resource": discovery.resource,
        }
        if scopes:
            query["scope"] = scopes
        endpoint = meta.get("authorization_endpoint") or f"{_origin(discovery.issuer)}/authorize"
        url = f"{endpoint}{'&' if '?' in endpoint else '?'}{urlencode(query)}"
        request = LoginRequest(self.server, url, query["redirect_uri"], discovery.issuer, scopes)
        landed = await self.login(request)
        params = {k: v[0] for k, v in parse_qs(urlsplit(landed).query).items()}
        if "error" in params:
            why = params.get("error_description") or params["error"]
            raise AuthError(f"server {self.server!r}: the authorization server refused the login: {why}")
        if params.get("state") != state:
            raise AuthError(f"server {self.server!r}: the login answer's state does not match; try logging in again")
        if "code" not in params:
            raise AuthError(f"server {self.server!r}: the login answer has no authorization code; try again")
        form = {
            "grant_type": "authorization_code",
            "code": params["code"],
            "redirect_uri": query["redirect_uri"],
            "code_verifier": verifier,
            "resource": discovery.resource,
        }
        self._tokens = _Tokens.from_response(await self._token_request(http, client, form))
        self._save()

    async def _refresh_or_forget(self) -> bool:
        """True when a refresh worked; else the tokens are dropped (a login is needed)."""
        assert self._tokens is not None and self._tokens.refresh_token
        http = self._http_client()
        try:
            discovery = self._discovery or await self._discover(http, {})
            self._discovery = discovery
            client = self._client or await self._client_for(http, discovery)
            form = {"grant_type": "refresh_token", "refresh_token": self._tokens.refresh_token,
                    "resource": discovery.resource}  # fmt: skip
            self._tokens = _Tokens.from_response(await self._token_request(http, client, form), self._tokens)
        except (AuthError, httpx.HTTPError):
            self._tokens = None
            self._save()
            return False
        self._save()
        return True

    async def _token_request(self, http: httpx.AsyncClient, client: _Client, form: dict[str, str]) -> JSON:
        assert self._discovery is not None
        endpoint = self._discovery.metadata.get("token_endpoint") or f"{_origin(self._discovery.issuer)}/token"
        response = await self._post_token(http, endpoint, client, form)
        if response.status_code in (400, 401) and client.auth_method == "client_secret_basic":
            # A pre-registered client's method is a guess from the server's list: a server
            # that wanted the secret in the form says so with a 400/401. Try that once.
            client.auth_method = "client_secret_post"
            response = await self._post_token(http, endpoint, client, form)
        data = _json(response)
        if response.status_code >= 400 or "error" in data:
            why = data.get("error_description") or data.get("error") or f"HTTP {response.status_code}"
            raise AuthError(f"server {self.server!r}: the token request was refused: {why}")
        return data

    async def _post_token(
        self, http: httpx.AsyncClient, endpoint: str, client: _Client, form: dict[str, str]
    ) -> httpx.Response:
        auth = httpx.Auth()  # sends no credentials (what httpx makes of auth=None)
        if client.auth_method == "client_secret_basic" and client.client_secret:
            auth = httpx.BasicAuth(client.client_id, client.client_secret)
        else:
            form = {**form, "client_id": client.client_id}
            if client.auth_method == "client_secret_post" and client.client_secret:
                form["client_secret"] = client.client_secret
        try:
            return await http.post(endpoint, data=form, headers={"Accept": "application/json"}, auth=auth)
        except httpx.HTTPError as e:
            raise AuthError(f"cannot reach the token endpoint {endpoint}: {type(e).__name__}") from None

    # -- discovery and registration ----------------------------------------------------

    async def _discover(self, http: httpx.AsyncClient, challenge: dict[str, str]) -> _Discovery:
        prm: JSON | None = None
        candidates = [challenge["resource_metadata"]] if challenge.get("resource_metadata") else []
        parts = urlsplit(self.url)
        if not candidates:
            path = parts.path.rstrip("/")
            if path:
                candidates.append(f"{_origin(self.url)}/.well-known/oauth-protected-resource{path}")
            candidates.append(f"{_origin(self.url)}/.well-known/oauth-protected-resource")
        for candidate in candidates:
            self._require_safe("resource metadata", candidate)
            prm = await _get_json(http, candidate)
            if prm is not None:
                break
        resource = canonical_resource(self.url)
        if prm is not None:
            servers = prm.get("authorization_servers")
            if not isinstance(servers, list) or not servers:
                raise AuthError(f"server {self.server!r}: its resource metadata names no authorization server")
            declared = prm.get("resource")
            if isinstance(declared, str) and declared:
                if not resource.startswith(canonical_resource(declared)):
                    raise AuthError(
                        f"server {self.server!r}: its resource metadata is for {declared!r}, not this server; "
                        "refusing to send it a token"
                    )
                resource = canonical_resource(declared)
            issuer = str(servers[0])
            self._require_safe("authorization server", issuer)
        else:
            issuer = _origin(self.url)  # 2025-03-26: the server's own origin
        metadata = await self._metadata(http, issuer)
        for key in ("authorization_endpoint", "token_endpoint", "registration_endpoint"):
            if metadata.get(key) is not None:
                self._require_safe(key.replace("_", " "), metadata[key])
        found = str(metadata.get("issuer") or issuer)
        if self.issuer is not None and found != self.issuer:
            self._tokens = self._client = None  # another issuer: nothing of the old one applies
        self.issuer = found
        scopes = prm.get("scopes_supported") if prm else None
        return _Discovery(
            resource, self.issuer, metadata, scopes if isinstance(scopes, list) else None, prm is not None
        )

    def _require_safe(self, what: str, url: object) -> None:
        """Addresses from the server's metadata are opened in a browser or sent secrets: only
        https (or http on this machine; see links.py)."""
        problem = link_problem(url)
        if problem is not None:
            shown = repr(url if not isinstance(url, str) or len(url) <= 80 else url[:77] + "...")
            raise AuthError(f"server {self.server!r}: its {what} {shown} is refused ({problem}); not logging in")

    async def _metadata(self, http: httpx.AsyncClient, issuer: str) -> JSON:
        parts = urlsplit(issuer)
        origin, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
        if path:
            urls = [f"{origin}/.well-known/oauth-authorization-server{path}",
                    f"{origin}/.well-known/openid-configuration{path}",
                    f"{origin}{path}/.well-known/openid-configuration"]  # fmt: skip
        else:
            urls = [f"{origin}/.well-known/oauth-authorization-server", f"{origin}/.well-known/openid-configuration"]
        for url in urls:
            data = await _get_json(http, url)
            if data is not None:
                return data
        # No metadata (2025-03-26): the default endpoints at the issuer's origin.
        return {"issuer": issuer, "authorization_endpoint": f"{origin}/authorize", "token_endpoint": f"{origin}/token",
                "registration_endpoint": f"{origin}/register"}  # fmt: skip

    async def _client_for(self, http: httpx.AsyncClient, discovery: _Discovery) -> _Client:
        if self._client is not None:
            return self._client
        meta = discovery.metadata
        supported = meta.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
        settings = self.settings
        if settings.client_id:
            method = "none"
            if settings.client_secret:
                method = "client_secret_basic" if "client_secret_basic" in supported else "client_secret_post"
            self._client = _Client(settings.client_id, settings.client_secret, method, self._redirect_uri())
        elif settings.client_metadata_url and meta.get("client_id_metadata_document_supported"):
            self._client = _Client(settings.client_metadata_url, None, "none", self._redirect_uri())
        elif meta.get("registration_endpoint"):
            self._client = await self._register(http, str(meta["registration_endpoint"]), supported)
        else:
            raise AuthError(
                f"server {self.server!r}: its authorization server has no client registration; "
                "register a client there and give its id (--client-id, --client-secret-env)"
            )
        self._save()
        return self._client

    async def _register(self, http: httpx.AsyncClient, endpoint: str, supported: list[str]) -> _Client:
        redirect = self._redirect_uri()
        method = "none" if "none" in supported else supported[0]
        body = {
            "client_name": self.settings.client_name,
            "redirect_uris": [redirect],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
        }
        try:
            response = await http.post(endpoint, json=body)
        except httpx.HTTPError as e:
            raise AuthError(f"cannot reach the registration endpoint {endpoint}: {type(e).__name__}") from None
        data = _json(response)
        if response.status_code >= 400 or "client_id" not in data:
            why = data.get("error_description") or data.get("error") or f"HTTP {response.status_code}"
            raise AuthError(f"server {self.server!r}: client registration was refused: {why}")
        return _Client(
            str(data["client_id"]),
            data.get("client_secret"),
            str(data.get("token_endpoint_auth_method") or method),
            redirect,
        )

    def _redirect_uri(self) -> str:
        port = self.settings.redirect_port or _pick_port()
        return f"http://127.0.0.1:{port}/callback"

    # -- storage -----------------------------------------------------------------------

    def _key(self, issuer: str) -> str:
        return f"{canonical_resource(self.url)} {issuer}"

    def _load_any(self) -> None:
        """Tokens saved for this URL (by any issuer seen before) are used until a 401 says
        otherwise; a different URL or issuer never shares them."""
        if self._loaded:
            return
        self._loaded = True
        issuer = self.issuer or self._remembered_issuer()
        if issuer is None:
            return
        entry = self.store.load(self._key(issuer)) or {}
        tokens, client = entry.get("tokens"), entry.get("client")
        if isinstance(tokens, dict) and tokens.get("access_token"):
            self._tokens = _Tokens(
                access_token=tokens["access_token"],
                refresh_token=tokens.get("refresh_token"),
                expires_at=tokens.get("expires_at"),
                scope=tokens.get("scope"),
            )
        if isinstance(client, dict) and client.get("client_id"):
            self._client = _Client(
                client_id=client["client_id"],
                client_secret=client.get("client_secret"),
                auth_method=client.get("auth_method", "none"),
                redirect_uri=client.get("redirect_uri"),
            )
        self.issuer = issuer

    def _remembered_issuer(self) -> str | None:
        entry = self.store.load(f"{canonical_resource(self.url)} issuer")
        return entry.get("issuer") if entry else None

    def _save(self) -> None:
        if not self.issuer:
            return
        self.store.save(f"{canonical_resource(self.url)} issuer", {"issuer": self.issuer})
        entry: JSON = {}
        if self._tokens is not None:
            entry["tokens"] = self._tokens.to_json()
        if self._client is not None:
            entry["client"] = dict(vars(self._client))
        self.store.save(self._key(self.issuer), entry)

    def _http_client(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = httpx.AsyncClient(timeout=30, follow_redirects=False, verify=self.verify)
        return self._http


_TOKEN_FIELDS = ("access_token", "refresh_token", "expires_at", "scope", "lifetime")
_CLIENT_FIELDS = ("client_id", "client_secret", "auth_method", "redirect_uri")


def _pick_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _json(response: httpx.Response) -> JSON:
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


async def _get_json(http: httpx.AsyncClient, url: str) -> JSON | None:
    try:
        response = await http.get(url, headers={"Accept": "application/json", "MCP-Protocol-Version": "2025-11-25"})
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    data = _json(response)
    return data or None


__all__ = ["Login", "LoginRequest", "OAuth", "OAuthSettings", "canonical_resource", "parse_challenge"]
