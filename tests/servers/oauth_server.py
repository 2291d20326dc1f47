"""An OAuth-protected MCP server built with the official SDK's auth pieces (the demo's
authorization server, mcp_notebook/demo/auth.py): real Dynamic Client Registration, PKCE,
RFC 8707 resources, expiring access tokens and refresh tokens.

    python tests/servers/oauth_server.py PORT [TOKEN_SECONDS] [--iss MODE] [--issuer-host HOST]
                                         [--metadata-issuer URL] [--offline-access]

Its /authorize approves at once and redirects to the client's redirect URI with a code (the
person's consent is not what is tested). Tools: `issued` (how many access tokens were issued
so far: refreshes show there), `granted` (the scopes of the token this call came with),
`registrations` (the client ids registered here), `application_types` (what each
registration request said).

The options make it the authorization servers of 2026-07-28's authorization rules, which the
SDK's does not play by itself:
  --iss correct|missing|wrong|unadvertised-wrong  RFC 9207: advertise
      `authorization_response_iss_parameter_supported` (all but the last) and put this `iss`
      in the login answer (the issuer, none, or another one)
  --issuer-host HOST  the authorization server's issuer is http://HOST:PORT (the MCP server
      stays at 127.0.0.1): restarted with `localhost`, the server has moved to another
      authorization server
  --metadata-issuer URL  the metadata names this issuer, not the one it is served for
  --offline-access  `offline_access` is among the authorization server's scopes_supported
"""

from __future__ import annotations

import argparse
import json
from typing import Any
from urllib.parse import urlencode

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

from mcp_notebook.demo.auth import protect

parser = argparse.ArgumentParser()
parser.add_argument("port", type=int)
parser.add_argument("token_seconds", type=int, nargs="?", default=3600)
parser.add_argument("--iss", choices=["correct", "missing", "wrong", "unadvertised-wrong"])
parser.add_argument("--issuer-host", default="127.0.0.1")
parser.add_argument("--metadata-issuer")
parser.add_argument("--offline-access", action="store_true")
args = parser.parse_args()

PORT = args.port
ISSUER = f"http://{args.issuer_host}:{PORT}"
server = MCPServer("oauth-demo")
provider = protect(server, f"http://127.0.0.1:{PORT}", args.token_seconds)
if args.issuer_host != "127.0.0.1" or args.offline_access:
    settings: dict[str, Any] = server.settings.auth.model_dump(mode="json") if server.settings.auth else {}
    settings["issuer_url"] = ISSUER
    if args.offline_access:
        scopes = ["read", "offline_access"]
        settings["client_registration_options"].update(valid_scopes=scopes, default_scopes=scopes)
    server.settings.auth = AuthSettings.model_validate(settings)


@server.tool()
def issued() -> int:
    """How many access tokens the authorization server has issued."""
    return provider.issued


@server.tool()
def granted() -> list[str]:
    """The scopes of the access token this call came with."""
    token = get_access_token()
    return sorted(token.scopes) if token else []


@server.tool()
def registrations() -> list[str]:
    """The client ids registered at this authorization server."""
    return sorted(provider.clients)


if args.iss in ("correct", "wrong", "unadvertised-wrong"):
    authorize = provider.authorize

    async def authorize_with_iss(client: Any, params: Any) -> str:
        answer = await authorize(client, params)
        iss = ISSUER if args.iss == "correct" else "https://evil.example"
        return f"{answer}&{urlencode({'iss': iss})}"

    provider.authorize = authorize_with_iss  # type: ignore[method-assign]


APPLICATION_TYPES: list[str | None] = []  # as each registration request said it (the SDK fills in a default)


@server.tool()
def application_types() -> list[str | None]:
    """The application_type of each registration request, as sent (None: not sent)."""
    return APPLICATION_TYPES


def observed(app: Any) -> Any:
    """The app, with the metadata as the options say (the SDK builds it itself) and the
    registration requests recorded as sent."""
    changes: dict[str, Any] = {}
    if args.iss in ("correct", "missing", "wrong"):
        changes["authorization_response_iss_parameter_supported"] = True
    if args.metadata_issuer:
        changes["issuer"] = args.metadata_issuer

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/register":
            messages = [await receive()]
            while messages[-1].get("more_body"):
                messages.append(await receive())
            body = json.loads(b"".join(m.get("body", b"") for m in messages) or b"{}")
            APPLICATION_TYPES.append(body.get("application_type"))

            async def replay() -> Any:
                return messages.pop(0) if messages else await receive()

            await app(scope, replay, send)
        elif changes and scope["type"] == "http" and scope["path"] == "/.well-known/oauth-authorization-server":
            parts: list[Any] = []

            async def keep(message: Any) -> None:
                parts.append(message)

            await app(scope, receive, keep)
            body = json.dumps({**json.loads(b"".join(m.get("body", b"") for m in parts[1:])), **changes}).encode()
            headers = [(k, v) for k, v in parts[0]["headers"] if k.lower() != b"content-length"]
            await send({**parts[0], "headers": [*headers, (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
        else:
            await app(scope, receive, send)

    return wrapped


if __name__ == "__main__":
    uvicorn.run(observed(server.streamable_http_app()), host="127.0.0.1", port=PORT, log_level="warning")
