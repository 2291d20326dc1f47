"""Subcommands that keep and compare listings: snapshot (a server's listings to a file),
diff (what changed between two servers, or a server and a snapshot)."""

from __future__ import annotations

import os
from typing import Any

from ..errors import ArgumentError
from .base import Context, command, connected_servers
from .parsing import Parser

__all__ = ["diff", "snapshot"]


@command(
    "snapshot SERVER PATH",
    "save a server's listings (tools, resources, templates, prompts, with their schemas) to a file",
    """
Each listing is fetched afresh and kept as the server sent it, with the server's name and
version, the protocol version and the time: a JSON file to compare the server with later
(%mcp diff), such as its next version against this one.
  %mcp snapshot demo demo-1.0.json
""",
)
def snapshot(ctx: Context, tokens: list[str]) -> None:
    parser = Parser("snapshot")
    parser.add_argument("server")
    parser.add_argument("path")
    opts = parser.parse(tokens)
    connected_servers(ctx, opts.server)  # one line if it is not connected
    try:
        data = ctx.client.snapshot(opts.server, opts.path)
    except ArgumentError as e:
        raise ArgumentError(str(e)) from None
    words = {"tools": "tool", "resources": "resource", "resourceTemplates": "template", "prompts": "prompt"}
    counts = ", ".join(f"{len(data[k])} {w}{'s' if len(data[k]) != 1 else ''}" for k, w in words.items() if data[k])
    ctx.out(f"saved {opts.server}'s listings to {opts.path}: {counts or 'nothing listed'}")


@command(
    "diff A B",
    "a table of what changed from A to B: two servers, or a server and a snapshot",
    """
A and B are each a server's name (its listings now) or a snapshot's path (%mcp snapshot).
One row a change: kind (tool, prompt, resource, template), name, change (added, removed,
renamed, changed), path (where in the entry: inputSchema.required,
inputSchema.properties.limit.type, ...), before, after, breaking. An entry equal but for
its name and titles is a rename. Breaking, for a caller of A: an entry removed or renamed,
an argument removed or newly required, any value a caller could send before and cannot now
(a type narrowed, an enum shrunk or made a const, a bound added), an output field removed
or a value it could not return before, a MIME type changed.
  %mcp diff demo-1.0.json demo
  changes = %mcp diff staging production
""",
)
def diff(ctx: Context, tokens: list[str]) -> Any:
    parser = Parser("diff")
    parser.add_argument("old")
    parser.add_argument("new")
    opts = parser.parse(tokens)
    for name in (opts.old, opts.new):
        # On the command line a name not yet started is a saved server, unless it is a file.
        if name in ctx.client or (ctx.source is not None and not os.path.isfile(name)):
            connected_servers(ctx, name)
    try:
        changes = ctx.client.diff(opts.old, opts.new)
    except ArgumentError as e:
        raise ArgumentError(str(e)) from None
    if not changes:
        ctx.out(f"no differences between {opts.old} and {opts.new}")
    from .tables import changes_frame

    return changes_frame(changes)
