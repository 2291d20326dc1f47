"""python -m mcp_notebook.demo [--http PORT [--oauth] | --sse PORT] [--host HOST]"""

from __future__ import annotations

import argparse
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
    opts = parser.parse_args(argv)
    if opts.oauth and opts.http is None:
        parser.error("--oauth needs --http PORT")
    try:
        from .server import server
    except ImportError as e:
        print(f"the demo server needs the official MCP SDK: pip install 'mcp-notebook[demo]' ({e})", file=sys.stderr)
        return 1
    if opts.http is not None:
        if opts.oauth:
            from .auth import protect

            protect(server, f"http://{opts.host}:{opts.http}", opts.token_seconds)
        server.run("streamable-http", host=opts.host, port=opts.http)
    elif opts.sse is not None:
        server.run("sse", host=opts.host, port=opts.sse)
    else:
        server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
