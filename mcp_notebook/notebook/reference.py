"""The magic reference (docs/magics.md), written from the commands' own help and the
settings' traitlets, so that the two never disagree.

    python -m mcp_notebook.notebook.reference > docs/magics.md
"""

from __future__ import annotations

from traitlets import Undefined

from .. import commands
from .magics import MCPMagics

__all__ = ["markdown"]


def markdown() -> str:
    out = [
        "# %mcp magic reference",
        "",
        "Written from the magics' own help (`python -m mcp_notebook.notebook.reference > docs/magics.md`;",
        "a test keeps it current). In a notebook, `%mcp?` and `%mcp help SUBCOMMAND` show the same.",
        "",
        "## Subcommands",
        "",
    ]
    for command in commands.listed():
        out += [f"### `%mcp {command.usage}`", "", command.summary[:1].upper() + command.summary[1:] + ".", ""]
        if command.details:
            out += ["```", command.details, "```", ""]
    out += [
        "### `%%mcp_call SERVER.TOOL [-o VAR]`",
        "",
        "Call a tool with the cell body as its arguments: JSON, or a Python dict expression.",
        "",
        "## Settings",
        "",
        "`%config MCPMagics.NAME = VALUE`; `%config MCPMagics` lists them with their values.",
        "",
        "| setting | default | what it does |",
        "|---|---|---|",
    ]
    for name, trait in sorted(MCPMagics.class_traits(config=True).items()):
        default = trait.default()
        shown = "" if default is Undefined else repr(default)
        out.append(f"| `{name}` | `{shown}` | {trait.help} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
