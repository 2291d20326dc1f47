"""Options several subcommands share (add, restart, load): the protocol era, the tool
lists and the calls in flight, and where to save."""

from __future__ import annotations

from typing import Any

from ..core.config.scopes import SCOPES
from ..core.protocol.constants import PROTOCOL_CHOICES
from .parsing import Parser

__all__ = ["protocol_option", "save_option", "tools_lists", "tools_options"]


def protocol_option(parser: Parser) -> None:
    # argparse's error names the choices: one ArgumentError line for a bad value.
    parser.add_argument("--protocol", default="auto", choices=PROTOCOL_CHOICES, metavar="P")


def tools_options(parser: Parser) -> None:
    parser.add_argument("--tools", metavar="A,B")
    parser.add_argument("--exclude-tools", metavar="C")
    parser.add_argument("--allow-tools", metavar="D")
    parser.add_argument("--max-concurrency", type=int, metavar="N")


def tools_lists(opts: Any) -> dict[str, Any]:
    """ServerConfig's enabled_tools, disabled_tools, allowed_tools and max_concurrency from
    --tools, --exclude-tools, --allow-tools and --max-concurrency."""

    def names(value: str) -> list[str]:
        return [name.strip() for name in value.split(",") if name.strip()]

    return {
        "enabled_tools": None if opts.tools is None else names(opts.tools),
        "disabled_tools": names(opts.exclude_tools or ""),
        "allowed_tools": names(opts.allow_tools or ""),
        "max_concurrency": opts.max_concurrency,
    }


def save_option(parser: Parser) -> None:
    parser.add_argument("--save", nargs="?", const="project", choices=SCOPES, metavar="SCOPE")
