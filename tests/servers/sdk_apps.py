"""An MCP Apps server on the official SDK (``mcp.server.apps.Apps``, dual-era): ``pick`` has
a view (``ui://pick/app.html``, its resource declaring a connect domain, a camera and a bad
domain), ``pick_rows`` is called only by that view (``visibility: ["app"]``), and
``supports_apps`` says whether this client declared the extension on the request.

    python tests/servers/sdk_apps.py [--http PORT]
"""

from __future__ import annotations

import argparse

from mcp.server.apps import Apps, ResourceCsp, ResourcePermissions, client_supports_apps
from mcp.server.mcpserver import Context, MCPServer
from serving import serve

HTML = "<!DOCTYPE html><html><head><title>pick</title></head><body><p id='said'>a view</p></body></html>"

apps = Apps()


@apps.tool(resource_uri="ui://pick/app.html")
def pick(species: str = "Adelie") -> str:
    """Pick a species (its view shows the choice)."""
    return f"picked {species}"


@apps.tool(resource_uri="ui://pick/app.html", visibility=["app"])
def pick_rows(limit: int = 3) -> list[int]:
    """The rows the view shows (only the view calls it)."""
    return list(range(limit))


apps.add_html_resource(
    "ui://pick/app.html",
    HTML,
    name="pick",
    csp=ResourceCsp(connect_domains=["https://api.example.com", "https://x.example; script-src *"]),
    permissions=ResourcePermissions(camera={}),
    prefers_border=True,
)
server = MCPServer("apps", extensions=[apps])


@server.tool()
def supports_apps(ctx: Context) -> bool:
    """Whether the client declared MCP Apps on this request."""
    return client_supports_apps(ctx)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    serve(server, parser.parse_args().http)
