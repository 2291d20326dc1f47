"""An authorization server for the demo (``python -m mcp_notebook.demo --http PORT --oauth``),
built on the official SDK's auth pieces: Dynamic Client Registration, PKCE, RFC 8707
resources, expiring access tokens and refresh tokens, all in memory.

Its /authorize approves at once and sends the browser straight back with a code: it shows
the OAuth flow end to end without an identity provider. With ``--client-credentials ID`` it
also grants tokens with no person at all (the client_credentials grant) to that one client,
whose secret is the ``DEMO_CLIENT_SECRET`` environment variable (never a command-line
argument, which any user of the machine can read), sent as HTTP Basic or in the form. Not
for protecting anything.
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    OAuthAuthorizationServerProvider,
    ProviderTokenVerifier,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


# The SDK's protocol, subclassed: its default refuses the grants the demo does not offer.
class Provider(OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]):
    def __init__(self, token_seconds: int = 3600) -> None:
        self.token_seconds = token_seconds
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.issued = 0
        self.machine_grants = 0

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or ["read"], expires_at=time.time() + 300,
            client_id=str(client.client_id), code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri, redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )  # fmt: skip
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None, refresh: bool = True) -> OAuthToken:
        self.issued += 1
        token, renew = f"at-{secrets.token_urlsafe(24)}", f"rt-{secrets.token_urlsafe(24)}"
        expires = int(time.time()) + self.token_seconds
        self.access[token] = AccessToken(token=token, client_id=client_id, scopes=scopes, expires_at=expires,
                                         resource=resource)  # fmt: skip
        if refresh:
            self.refresh[renew] = RefreshToken(token=renew, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=token, token_type="Bearer", expires_in=self.token_seconds,
                          refresh_token=renew if refresh else None, scope=" ".join(scopes))  # fmt: skip

    def client_credentials(self, form: dict[str, str], authorization: str, client_id: str, secret: str) -> Any:
        """The answer to a client_credentials token request: (status, JSON)."""
        given_id, given_secret = form.get("client_id", ""), form.get("client_secret", "")
        if authorization.lower().startswith("basic "):
            try:
                given_id, _, given_secret = base64.b64decode(authorization[6:]).decode().partition(":")
            except ValueError:  # not Base64, or not UTF-8
                given_id = given_secret = ""
        same_id = secrets.compare_digest(given_id.encode(), client_id.encode())
        if not (same_id and secrets.compare_digest(given_secret.encode(), secret.encode())):
            return 401, {"error": "invalid_client", "error_description": "unknown client or wrong secret"}
        self.machine_grants += 1
        token = self._issue(client_id, ["read"], form.get("resource"), refresh=False)
        return 200, token.model_dump(exclude_none=True)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(str(client.client_id), authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        return self._issue(str(client.client_id), scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


ASGI = Callable[[dict[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


def with_client_credentials(app: ASGI, provider: Provider, client_id: str, secret: str) -> ASGI:
    """``app`` whose token endpoint also takes the client_credentials grant for one client
    (the SDK's takes authorization_code and refresh_token only); its metadata lists it."""

    async def asgi(scope: dict[str, Any], receive: Callable[[], Awaitable[Any]], send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/token" or scope["method"] != "POST":
            if (
                scope["type"] == "http"
                and scope["path"] == "/.well-known/oauth-authorization-server"
                and (scope["method"] == "GET")
            ):
                await app(scope, receive, _listing_the_grant(send))
                return
            await app(scope, receive, send)
            return
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        form = dict(parse_qsl(body.decode(errors="replace")))
        if form.get("grant_type") != "client_credentials":
            replayed = False

            async def replay() -> Any:
                nonlocal replayed
                if replayed:
                    return await receive()
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}

            await app(scope, replay, send)
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        status, answer = provider.client_credentials(form, headers.get("authorization", ""), client_id, secret)
        data = json.dumps(answer).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]})  # fmt: skip
        await send({"type": "http.response.body", "body": data})

    return asgi


def _listing_the_grant(send: Any) -> Any:
    """``send`` for the metadata response, with client_credentials in grant_types_supported."""
    start: dict[str, Any] = {}

    async def sending(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
            if message.get("status") != 200:
                await send(message)
            return
        if start.get("status") != 200:
            await send(message)
            return
        data = json.loads(message.get("body", b"{}") or b"{}")
        data["grant_types_supported"] = [*data.get("grant_types_supported", []), "client_credentials"]
        body = json.dumps(data).encode()
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    return sending


def protect(server: Any, base_url: str, token_seconds: int = 3600) -> Provider:
    """Put ``server`` (an MCPServer, before it runs) behind this authorization server, at
    ``base_url`` (the MCP endpoint is ``base_url + "/mcp"``)."""
    provider = Provider(token_seconds)
    # Validated from strings: a path-less issuer stays as given (no trailing slash), as the
    # SDK intends; an AnyHttpUrl made here would gain one.
    server.settings.auth = AuthSettings.model_validate(
        {
            "issuer_url": base_url,
            "resource_server_url": f"{base_url}/mcp",
            "client_registration_options": ClientRegistrationOptions(
                enabled=True, valid_scopes=["read"], default_scopes=["read"]
            ),
            "required_scopes": ["read"],
            "validate_token_resource": False,
        }
    )
    # The SDK takes these at construction; the demo server is built before it knows.
    server._auth_server_provider = provider
    server._token_verifier = ProviderTokenVerifier(provider)
    return provider
