"""A protected MCP endpoint whose authorization server echoes each token request in its
error: the form body as sent (URL-encoded), the Authorization header and what it decodes to.

    python tests/servers/echoing_auth.py PORT [basic|post]

/mcp answers 401 pointing at its protected-resource metadata; the authorization server (the
same origin) takes client_secret_basic (the default) or client_secret_post. /token answers a request
with an ``Authorization`` header 500 (so the client shows that answer rather than retrying
with the secret in the form), and any other 400; both ``error_description`` quote what came.
/echo/mcp, an MCP endpoint needing no login, answers every POST 400 quoting its headers
(but the usual ones); /flood/mcp answers 500 quoting its X- headers, then a megabyte.
"""

from __future__ import annotations

import base64
import json
import sys
from http.server import ThreadingHTTPServer

from httpbase import QuietHandler


class Handler(QuietHandler):
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def json(self, status: int, data: object, extra: dict[str, str] | None = None) -> None:
        self.reply(status, "application/json", json.dumps(data).encode(), extra)

    def do_GET(self) -> None:
        if self.path.startswith("/.well-known/oauth-protected-resource"):
            self.json(200, {"resource": f"{self.origin()}/mcp", "authorization_servers": [self.origin()]})
        elif self.path.startswith("/.well-known/oauth-authorization-server"):
            self.json(200, {
                "issuer": self.origin(),
                "authorization_endpoint": f"{self.origin()}/authorize",
                "token_endpoint": f"{self.origin()}/token",
                "token_endpoint_auth_methods_supported": [f"client_secret_{METHOD}"],
                "grant_types_supported": ["client_credentials"],
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
            })  # fmt: skip
        elif self.path.startswith("/mcp"):
            self.unauthorized()
        else:
            self.json(404, {"error": "not_found"})

    def unauthorized(self) -> None:
        meta = f"{self.origin()}/.well-known/oauth-protected-resource"
        self.json(401, {"error": "unauthorized"}, {"WWW-Authenticate": f'Bearer resource_metadata="{meta}"'})

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("latin-1")
        if self.path.startswith("/echo/mcp"):  # an MCP endpoint that quotes the request's headers
            usual = {"host", "accept", "accept-encoding", "connection", "user-agent", "content-type", "content-length"}
            quoted = {k: v for k, v in self.headers.items() if k.lower() not in usual}
            self.json(400, {"error": f"cannot parse the request: {quoted}"})
            return
        if self.path.startswith("/flood/mcp"):  # the same, then a megabyte slow to scan for secrets whole
            quoted = {k: v for k, v in self.headers.items() if k.lower().startswith("x-")}
            self.reply(500, "text/plain", f"cannot parse the request: {quoted} {'eyJ-' * 250_000}".encode())
            return
        if not self.path.startswith("/token"):
            self.unauthorized()
            return
        header = self.headers.get("Authorization")
        if header:
            decoded = base64.b64decode(header.split(" ", 1)[-1]).decode("latin-1")
            why = f"cannot parse the request: Authorization: {header} ({decoded}); body: {body}"
            self.json(500, {"error": "server_error", "error_description": why})
        else:
            self.json(400, {"error": "invalid_request", "error_description": f"cannot parse the request: {body}"})


METHOD = sys.argv[2] if len(sys.argv) > 2 else "basic"

if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
