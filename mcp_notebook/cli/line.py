"""The command line's own words, around a subcommand's: where the output goes and how it
looks, which config file, and the server given on the line (a command after ``--``, or
``--url`` with the options ``%mcp add`` takes for a remote server)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import NoReturn
from urllib.parse import urlsplit

from ..commands.parsing import seconds
from ..errors import ArgumentError
from .output import FORMATS

__all__ = ["IN_NOTEBOOK", "Line", "OFFERED", "read_line"]

# The subcommands a shell can use (a notebook has more: map, form, history, …, which live
# in a kernel's memory or a page), in the order --help lists them.
OFFERED = (
    "list",
    "status",
    "logs",
    "tools",
    "resources",
    "templates",
    "prompts",
    "skills",
    "skill",
    "call",
    "read",
    "prompt",
    "snapshot",
    "diff",
    "add",
    "load",
    "remove",
    "login",
    "logout",
    "help",
)


# The notebook's own subcommands (widgets), which the command line does not even import.
IN_NOTEBOOK = ("form", "subscribe", "unsubscribe")


@dataclass
class Line:
    subcommand: str | None  # None: no subcommand (the overview)
    tokens: list[str]  # the subcommand's own words
    fmt: str
    config: str | None
    open_browser: bool
    given: list[str] | None  # the given server as %mcp add reads it after NAME; None: none given
    roots: list[str]  # folders offered to the servers as roots (none by default, as in a notebook)
    startup_timeout: float | None
    help: bool
    version: bool
    trust: bool = False  # trust this folder's ./.mcp.json (its project servers) as it is now
    allow: list[str] = field(default_factory=list)  # SERVER.TOOL globs that run without asking


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ArgumentError(message)


def _common() -> _Parser:
    parser = _Parser(prog="mcp-notebook", add_help=False, allow_abbrev=False)
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--config", metavar="PATH")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--root", action="append", default=[])
    parser.add_argument("--startup-timeout", type=seconds, metavar="S")
    parser.add_argument("--trust", action="store_true")
    parser.add_argument("--allow", action="append", default=[], metavar="SERVER.TOOL")
    parser.add_argument("-h", "--help", action="store_true")
    parser.add_argument("--version", action="store_true")
    return parser


# The given server's options: %mcp add's, for a command (after --) or for a URL.
COMMAND_OPTIONS = ("env", "cwd", "protocol", "tools", "exclude-tools")
URL_OPTIONS = ("header", "transport", "bearer-env", "client-id", "client-secret-env", "redirect-port", "protocol",
               "tools", "exclude-tools", "grant", "private-key-file", "private-key-env", "signing-alg",
               "assertion-file", "assertion-env", "id-token-file", "id-token-env", "idp-token-endpoint",
               "idp-client-id", "idp-client-secret-env")  # fmt: skip
REPEATED = ("env", "header")


def _given_options(parser: _Parser) -> None:
    parser.add_argument("--url")
    for name in dict.fromkeys(COMMAND_OPTIONS + URL_OPTIONS):
        if name in REPEATED:
            parser.add_argument(f"--{name}", action="append", default=[])
        else:
            parser.add_argument(f"--{name}")


def read_line(argv: list[str]) -> Line:
    """Split ``argv`` into the command line's options and the subcommand's words. Options
    may come anywhere before ``--``; after it, the server's command (except for ``add``,
    whose own grammar has the ``--``)."""
    head, command = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, None)
    parser = _common()
    opts, rest = parser.parse_known_args(head)
    subcommand = _subcommand(rest)
    if subcommand == "add":  # its options are its own, and so is its --
        tokens = rest[1:] + (["--", *command] if command is not None else [])
        return Line(subcommand, tokens, opts.format, opts.config, not opts.no_browser, None, opts.root,
                    opts.startup_timeout, opts.help, opts.version, opts.trust, _allowed(opts.allow))  # fmt: skip
    _given_options(parser)
    opts, rest = parser.parse_known_args(head)
    subcommand = _subcommand(rest)
    given = _given(opts, command)
    return Line(subcommand, rest[1:], opts.format, opts.config, not opts.no_browser, given, opts.root,
                opts.startup_timeout, opts.help, opts.version, opts.trust, _allowed(opts.allow))  # fmt: skip


def _allowed(values: list[str]) -> list[str]:
    """``--allow`` values (repeatable, comma-separated), each ``SERVER.TOOL`` (globs: ``demo.delete_*``)."""
    out = []
    for value in values:
        for item in value.split(","):
            item = item.strip()
            server, dot, tool = item.partition(".")
            if not (server and dot and tool):
                raise ArgumentError(f"--allow {item!r}: give SERVER.TOOL (globs too: demo.delete_*, '*.read_*')")
            out.append(item)
    return out


def _subcommand(rest: list[str]) -> str | None:
    if rest and rest[0].startswith("-"):
        raise ArgumentError(f"unknown option {rest[0]!r} (before the subcommand); mcp-notebook --help lists them")
    return rest[0] if rest else None


def _words(opts: argparse.Namespace, names: tuple[str, ...]) -> list[str]:
    """The options among ``names`` that were given, as %mcp add's words."""
    words = []
    for name in names:
        value = getattr(opts, name.replace("-", "_"))
        for item in value if name in REPEATED else [value] if value is not None else []:
            words.append(f"--{name}={item}")
    return words


def _given(opts: argparse.Namespace, command: list[str] | None) -> list[str] | None:
    if command is not None and opts.url:
        raise ArgumentError("give the server as a command after -- or as --url URL, not both")
    if command is not None:
        if not command:
            raise ArgumentError("nothing after --; give the server's command")
        stray = _words(opts, tuple(n for n in URL_OPTIONS if n not in COMMAND_OPTIONS))
        if stray:
            raise ArgumentError(f"{stray[0].split('=')[0]} is for a server given with --url")
        return [*_words(opts, COMMAND_OPTIONS), "--", *command]
    if opts.url:
        try:
            urlsplit(opts.url).port  # noqa: B018 (a malformed address fails here, in one line)
        except ValueError as e:
            raise ArgumentError(f"--url {opts.url!r} is not a valid URL ({e})") from None
        if "://" not in opts.url:
            raise ArgumentError(f"--url {opts.url!r} is not a URL (for a server's command, put it after --)")
        stray = _words(opts, tuple(n for n in COMMAND_OPTIONS if n not in URL_OPTIONS))
        if stray:
            raise ArgumentError(f"{stray[0].split('=')[0]} is for a server command given after --")
        return [opts.url, *_words(opts, URL_OPTIONS)]
    stray = _words(opts, tuple(dict.fromkeys(COMMAND_OPTIONS + URL_OPTIONS)))
    if stray:
        raise ArgumentError(f"{stray[0].split('=')[0]} is for a server given on the line (--url URL, or -- COMMAND)")
    return None
