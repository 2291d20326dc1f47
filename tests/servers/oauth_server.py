"""An OAuth-protected MCP server built with the official SDK's auth pieces (the demo's
authorization server, mcp_notebook/demo/auth.py): real Dynamic Client Registration, PKCE,
RFC 8707 resources, expiring access tokens and refresh tokens.

    python tests/servers/oauth_server.py PORT [TOKEN_SECONDS]

Its /authorize approves at once and redirects to the client's redirect URI with a code (the
person's consent is not what is tested). Tool: `issued` (how many access tokens were issued
so far: refreshes show there).
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

from mcp_notebook.demo.auth import protect

PORT = int(sys.argv[1])
server = MCPServer("oauth-demo")
provider = protect(server, f"http://127.0.0.1:{PORT}", int(sys.argv[2]) if len(sys.argv) > 2 else 3600)


@server.tool()
def issued() -> int:
    """How many access tokens the authorization server has issued."""
    return provider.issued


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=PORT)
