"""python -m mcp_notebook.demo [--http PORT [--oauth [--client-credentials ID]] | --sse PORT] [--host HOST]"""

from __future__ import annotations

import argparse
import os
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mcp_notebook.demo",
        description="The mcp-notebook demo server: the Palmer penguins over MCP (stdio by default).",
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP at http://HOST:PORT/mcp")
    group.add_argument("--sse", type=int, metavar="PORT", help="serve legacy HTTP+SSE at http://HOST:PORT/sse")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind for --http/--sse (default 127.0.0.1)")
    parser.add_argument(
        "--oauth",
        action="store_true",
        help="with --http: require OAuth, from a built-in authorization server that approves at once (a demo)",
    )
    parser.add_argument("--token-seconds", type=int, default=3600, help="with --oauth: access token lifetime")
    parser.add_argument(
        "--client-credentials",
        metavar="ID",
        help="with --oauth: also grant tokens with no person (client_credentials) to client ID, whose secret is "
        "the DEMO_CLIENT_SECRET environment variable",
    )
    opts = parser.parse_args(argv)
    if opts.oauth and opts.http is None:
        parser.error("--oauth needs --http PORT")
    secret = os.environ.get("DEMO_CLIENT_SECRET", "")
    if opts.client_credentials and not (opts.oauth and secret):
        parser.error("--client-credentials needs --oauth and the DEMO_CLIENT_SECRET environment variable")
    try:
        from .server import server
    except ImportError as e:
        print(f"the demo server needs the official MCP SDK: pip install 'mcp-notebook[demo]' ({e})", file=sys.stderr)
        return 1
    if opts.http is not None:
        if opts.oauth:
            from .auth import protect, with_client_credentials

            provider = protect(server, f"http://{opts.host}:{opts.http}", opts.token_seconds)
            if opts.client_credentials:
                import uvicorn

                app = with_client_credentials(server.streamable_http_app(host=opts.host), provider,
                                              opts.client_credentials, secret)  # fmt: skip
                uvicorn.run(app, host=opts.host, port=opts.http, log_level="warning")
                return 0
        server.run("streamable-http", host=opts.host, port=opts.http)
    elif opts.sse is not None:
        server.run("sse", host=opts.host, port=opts.sse)
    else:
        server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
