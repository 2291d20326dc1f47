"""OAuth 2.1 for remote servers, as the MCP 2025-11-25 authorization spec says.

On a 401: find the authorization server (the ``resource_metadata`` of the challenge, else
the RFC 9728 well-known URLs; then RFC 8414 / OpenID metadata in the spec's order; for
2025-03-26 servers the server's own origin and default endpoints), get a client id
(pre-registered, a Client ID Metadata Document, or Dynamic Client Registration), then the
authorization-code flow with PKCE S256, ``state`` and the RFC 8707 ``resource``. The person's
part (opening the authorization URL, landing on the redirect) is a ``login`` callable the
runtime supplies. Tokens are refreshed before they expire and on a 401; on a 403
``insufficient_scope`` the flow runs again with the larger scope set.

2026-07-28 additions, applied whatever the server's era: the login answer's RFC 9207 ``iss``
must be the issuer the validated metadata names (and be there when the metadata promises it);
a registration says its ``application_type``; ``offline_access`` is asked for only when the
authorization server lists it. Registrations and tokens are kept per issuer: when a server
moves to another authorization server, nothing of the old one is sent to the new one, and the
client registers there afresh (or uses what it kept from an earlier visit).

This module runs the flow and keeps its state (tokens, the client registration, in the token
store); authdiscovery.py finds the authorization server, authserver.py talks to it. Tokens
and client secrets never appear in reprs, errors or logs.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

from ...errors import AuthError, LoginRequired
from ..loggers import CORE as LOG
from ..safety.text import printable
from .discovery import Discovery, canonical_resource, discover, parse_challenge
from .dpop import DPoP
from .dpop import offered as dpop_offered
from .grants import machine_token
from .server import Registration, Tokens, authorization_url, code_from, pkce, redirect_uri, register, token_request
from .settings import GRANTS, OAuthSettings
from .tokens import TokenStore

JSON = dict[str, Any]


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
        self._tokens: Tokens | None = None
        self._client: Registration | None = None
        self._discovery: Discovery | None = None
        self._dpop: DPoP | None = None  # this server's DPoP key, when its authorization server offers DPoP
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

    def header_now(self, method: str = "POST", url: str | None = None) -> dict[str, str]:
        """The headers that authorize a request (``method`` to ``url``, the server's URL by
        default) as things stand, without network I/O (may be stale): a bearer token, or a
        DPoP-bound one with its proof. A DPoP-bound token whose key is lost is not sent."""
        self._load_any()
        tokens = self._tokens
        if tokens is None:
            return {}
        if tokens.token_type != "DPoP":
            return {"Authorization": f"Bearer {tokens.access_token}"}
        if self._dpop is None:
            return {}  # never as a bearer token: the 401 that follows gets a new one
        proof = self._dpop.proof(method, url or self.url, tokens.access_token)
        return {"Authorization": f"DPoP {tokens.access_token}", "DPoP": proof}

    async def header(self, method: str = "POST", url: str | None = None) -> dict[str, str]:
        """``header_now``, the token refreshed first if it is about to expire."""
        self._load_any()
        tokens = self._tokens
        machine = self.settings.grant != "authorization_code"
        if tokens is not None and not tokens.fresh() and (tokens.refresh_token or machine):
            async with self._lock:
                if self._tokens is tokens:
                    await (self._authorize({}, None) if machine else self._refresh_or_forget())
        return self.header_now(method, url)

    async def unauthorized(self, challenge_header: str, sent: dict[str, str], nonce: str | None = None) -> None:
        """A 401: refresh the token if that can work, else log in (the person's part). A
        DPoP server asking for its ``nonce`` in the proofs gets it, and the request goes again."""
        challenge = parse_challenge(challenge_header)
        if challenge.get("error") == "use_dpop_nonce" and nonce and self._dpop is not None:
            self._dpop.remember(self.url, nonce)
            return
        async with self._lock:
            if sent.get("Authorization") != self.header_now().get("Authorization"):
                return  # another request already got a new token
            if self._tokens is not None and self._tokens.refresh_token and await self._refresh_or_forget():
                return
            await self._authorize(challenge, None)

    async def try_refresh(self) -> bool:
        """Refresh without asking anyone; False when that cannot work (a login is needed). A
        grant no person takes part in is simply run again."""
        async with self._lock:
            self._load_any()
            if self.settings.grant != "authorization_code":
                try:
                    await self._authorize({}, None)
                except (AuthError, httpx.HTTPError):
                    return False
                return True
            if self._tokens is None or not self._tokens.refresh_token:
                return False
            return await self._refresh_or_forget()

    async def insufficient_scope(self, challenge_header: str) -> None:
        """A 403 with ``error="insufficient_scope"``: authorize again for the larger set."""
        challenge = parse_challenge(challenge_header)
        async with self._lock:
            # What was granted (else asked for) stays: the challenge may name only what is missing.
            have = set(((self._tokens.scope if self._tokens else None) or self._scopes_asked or "").split())
            want = have | set(challenge.get("scope", "").split())
            await self._authorize(challenge, " ".join(sorted(want)) or None)

    def forget(self) -> None:
        """Log out: drop the tokens and the client registration (here and in the store)."""
        self._load_any()
        if self.issuer:
            self.store.delete(self._key(self.issuer))
        self._tokens = self._client = None
        self._dpop = None  # a key of its own for the next login

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
        self._use_dpop(discovery)
        if self.settings.grant != "authorization_code":  # nobody takes part: no login to ask for
            await self._machine_grant(http, discovery, scopes or self.settings.scopes or challenge.get("scope"))
            return
        if not self.can_login():
            raise LoginRequired(
                f"server {self.server!r} needs a login ({discovery.issuer}) and nobody can log in here; log in "
                f"from a notebook (%mcp login {self.server}) or a terminal (server.login()), then run this again"
            )
        methods = discovery.metadata.get("code_challenge_methods_supported")
        if discovery.prm_found and (not isinstance(methods, list) or "S256" not in methods):
            raise AuthError(
                f"server {self.server!r}: its authorization server ({discovery.issuer}) does not support PKCE "
                "with S256, which the MCP spec requires; not logging in"
            )
        if scopes is None:
            scopes = self.settings.scopes or challenge.get("scope")
            if scopes is None and discovery.scopes_supported:
                scopes = " ".join(discovery.scopes_supported)
        scopes = with_offline_access(scopes, discovery.metadata.get("scopes_supported"))
        self._scopes_asked = scopes
        client = await self._client_for(http, discovery)
        verifier, code_challenge = pkce()
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
        request = LoginRequest(
            self.server, authorization_url(discovery, query), query["redirect_uri"], discovery.issuer, scopes
        )
        issuer = printable(discovery.issuer)  # the server's text
        LOG.info("%s: a person is asked to log in (authorization server %s, scopes %s)", self.server, issuer, scopes)
        iss_required = discovery.metadata.get("authorization_response_iss_parameter_supported") is True
        form = {
            "grant_type": "authorization_code",
            "code": code_from(self.server, await self.login(request), state, discovery.issuer, iss_required),
            "redirect_uri": query["redirect_uri"],
            "code_verifier": verifier,
            "resource": discovery.resource,
        }
        answer = await token_request(http, self.server, discovery, client, form, dpop=self._dpop)
        self._tokens = Tokens.from_response(answer)
        self._save()
        LOG.info("%s: logged in (authorization server %s)", self.server, printable(discovery.issuer))

    async def _machine_grant(self, http: httpx.AsyncClient, discovery: Discovery, scopes: str | None) -> None:
        """A grant no person takes part in (grants.py). What the client authenticates with
        comes from the settings each time and is not kept in the token store."""
        self._scopes_asked = scopes
        LOG.info("%s: %s grant", self.server, self.settings.grant)
        answer = await machine_token(http, self.server, self.settings, discovery, scopes, self._dpop)
        # No refresh token is kept: the grant itself is run again when the token runs out,
        # authenticating as this grant does (a refresh would need the client kept with it).
        self._tokens = dataclasses.replace(Tokens.from_response(answer), refresh_token=None)
        self._save()
        LOG.info("%s: token granted (authorization server %s)", self.server, printable(discovery.issuer))

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
            answer = await token_request(http, self.server, discovery, client, form, dpop=self._dpop)
            self._tokens = Tokens.from_response(answer, self._tokens)
        except (AuthError, httpx.HTTPError) as e:
            LOG.info("%s: the token could not be renewed (%s): a login is needed", self.server, type(e).__name__)
            self._tokens = None
            self._save()
            return False
        self._save()
        LOG.info("%s: token renewed", self.server)
        return True

    # -- discovery and registration ----------------------------------------------------

    async def _discover(self, http: httpx.AsyncClient, challenge: dict[str, str]) -> Discovery:
        discovery = await discover(http, self.server, self.url, challenge)
        if discovery.issuer != self.issuer:
            client = self._client
            if self.issuer is not None and client is not None and client.client_id == self.settings.client_id:
                raise AuthError(
                    f"server {self.server!r} moved from the authorization server {self.issuer} to "
                    f"{discovery.issuer}; its pre-registered client id belongs to the old one: register a client "
                    f"at the new one and give its id (%mcp add ... --client-id), or log out to use the id there"
                )
            # Another authorization server: nothing of the old one is sent to it; what was
            # kept for this one (from an earlier visit) applies, else it registers afresh.
            self._dpop = None  # the old server's key stays with its tokens
            self._tokens, self._client = self._entry(discovery.issuer)
            self.issuer = discovery.issuer
        return discovery

    async def _client_for(self, http: httpx.AsyncClient, discovery: Discovery) -> Registration:
        """This client's registration: pre-registered, a Client ID Metadata Document, or
        Dynamic Client Registration, in that order."""
        if self._client is not None:
            return self._client
        meta = discovery.metadata
        supported = meta.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
        settings = self.settings
        if settings.client_id:
            method = "none"
            if settings.client_secret:
                method = "client_secret_basic" if "client_secret_basic" in supported else "client_secret_post"
            self._client = Registration(settings.client_id, settings.client_secret, method, self._redirect_uri())
        elif settings.client_metadata_url and meta.get("client_id_metadata_document_supported"):
            self._client = Registration(settings.client_metadata_url, None, "none", self._redirect_uri())
        elif meta.get("registration_endpoint"):
            endpoint = str(meta["registration_endpoint"])
            name = settings.client_name
            self._client = await register(http, self.server, endpoint, supported, name, self._redirect_uri())
        else:
            raise AuthError(
                f"server {self.server!r}: its authorization server has no client registration; "
                "register a client there and give its id (--client-id, --client-secret-env)"
            )
        self._save()
        return self._client

    def _use_dpop(self, discovery: Discovery) -> None:
        """DPoP when the authorization server offers it: this server's key, kept or new."""
        if not dpop_offered(discovery.metadata):
            self._dpop = None
        elif self._dpop is None:
            self._dpop = DPoP()

    def _redirect_uri(self) -> str:
        return redirect_uri(self.settings.redirect_port)

    # -- storage -----------------------------------------------------------------------

    def _key(self, issuer: str) -> str:
        key = f"{canonical_resource(self.url)} {issuer}"
        # A client that logs in as itself keeps its own tokens: never a person's, nor another client's.
        if self.settings.grant != "authorization_code":
            key += f" {self.settings.grant} {self.settings.identity()}"
        return key

    def _load_any(self) -> None:
        """Tokens saved for this URL (by the issuer seen last) are used until a 401 says
        otherwise; a different URL or issuer never shares them."""
        if self._loaded:
            return
        self._loaded = True
        issuer = self.issuer or self._remembered_issuer()
        if issuer is None:
            return
        self._tokens, self._client = self._entry(issuer)
        self.issuer = issuer

    def _entry(self, issuer: str) -> tuple[Tokens | None, Registration | None]:
        """What the store keeps for this URL at ``issuer``: tokens and the registration."""
        entry = self.store.load(self._key(issuer)) or {}
        tokens, client = entry.get("tokens"), entry.get("client")
        kept_tokens = kept_client = None
        if isinstance(tokens, dict) and tokens.get("access_token"):
            kept_tokens = Tokens(
                access_token=tokens["access_token"],
                refresh_token=tokens.get("refresh_token"),
                expires_at=tokens.get("expires_at"),
                scope=tokens.get("scope"),
                token_type="DPoP" if tokens.get("token_type") == "DPoP" else "Bearer",
            )
        if entry.get("dpop_key") is not None:
            self._dpop = DPoP.from_json(entry["dpop_key"])
        if isinstance(client, dict) and client.get("client_id"):
            kept_client = Registration(
                client_id=client["client_id"],
                client_secret=client.get("client_secret"),
                auth_method=client.get("auth_method", "none"),
                redirect_uri=client.get("redirect_uri"),
            )
        return kept_tokens, kept_client

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
        if self._dpop is not None:
            entry["dpop_key"] = self._dpop.to_json()  # its tokens are useless without it
        self.store.save(self._key(self.issuer), entry)

    def _http_client(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = httpx.AsyncClient(timeout=30, follow_redirects=False, verify=self.verify)
        return self._http


def with_offline_access(scopes: str | None, as_supported: object) -> str | None:
    """``scopes`` plus ``offline_access`` (a refresh token) when the authorization server
    lists it; never on its own: a request that named no scope would lose the default set."""
    if not scopes or not isinstance(as_supported, list) or "offline_access" not in as_supported:
        return scopes
    return scopes if "offline_access" in scopes.split() else f"{scopes} offline_access"


__all__ = ["GRANTS", "Login", "LoginRequest", "OAuth", "OAuthSettings", "with_offline_access"]
