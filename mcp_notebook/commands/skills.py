"""Subcommands about the servers' skills (the io.modelcontextprotocol/skills extension):
skills (a table), skill (one skill's SKILL.md, or one of its files)."""

from __future__ import annotations

from typing import Any

from ..core.protocol.skills import offers_skills
from ..errors import ArgumentError
from .base import Context, command, connected_servers, server_named
from .parsing import Parser

__all__ = ["skill", "skills"]


@command(
    "skills [SERVER] [--refresh]",
    "a table of the skills servers offer (the skills extension)",
    """
Columns: server, name, description, uri (its SKILL.md), files (how many; <NA>: the server
says they are dynamic), bytes, license. Only the list is asked for: no file is read. With no
SERVER, every connected server that declares the io.modelcontextprotocol/skills extension.
  skills = %mcp skills
  %mcp skills docs
""",
)
def skills(ctx: Context, tokens: list[str]) -> Any:
    parser = Parser("skills")
    parser.add_argument("server", nargs="?")
    parser.add_argument("--refresh", action="store_true")
    opts = parser.parse(tokens)
    servers = connected_servers(ctx, opts.server)
    if not opts.server:
        servers = [s for s in servers if offers_skills(s.capabilities)]
    found = []
    for server in servers:
        try:
            found += server.list_skills(refresh=opts.refresh)
        except ArgumentError as e:
            raise ArgumentError(str(e)) from None
    from .tables import skills_frame

    return skills_frame(found)


@command(
    "skill SERVER NAME [FILE]",
    "a skill's SKILL.md as Markdown, with its files; or one of its files",
    """
NAME is the skill's name (or the URI of its SKILL.md, for one the server does not list).
The SKILL.md is read and checked against the skill's entry (its size, digest and
frontmatter): a mismatch discards it, with one line saying so, as does a frontmatter using
YAML aliases. It shows rendered from its Markdown, the server's raw HTML as text and links
only to https addresses (its first 100,000 characters, with a note if there is more: the
value's .text is the whole file), then its files.
FILE (a path in the skill's folder, as the table names it) reads that file instead, checked
the same way; a file the skill does not list is never asked for.
  %mcp skill docs penguin-report
  notes = %mcp skill docs penguin-report reference.md
""",
)
def skill(ctx: Context, tokens: list[str]) -> Any:
    parser = Parser("skill")
    parser.add_argument("server")
    parser.add_argument("name")
    parser.add_argument("file", nargs="?")
    opts = parser.parse(tokens)
    server = server_named(ctx, opts.server)
    try:
        if opts.file:
            return server.read_skill_file(opts.name, opts.file)
        return server.get_skill(opts.name)
    except ArgumentError as e:
        raise ArgumentError(str(e)) from None
