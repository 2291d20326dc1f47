"""The notebook layer: magics, tables, rich display and completion for IPython/Jupyter."""

from __future__ import annotations

import re
from typing import Any

from . import completion, display
from .magics import MCPMagics

__all__ = ["MCPMagics", "load_ipython_extension", "unload_ipython_extension"]

_COMPLETION_KEYS = ("%mcp", "%%mcp_call")
# `%mcp …;` and `x = %mcp …;`: IPython hides a cell's value when the code ends in `;`,
# but a magic's `;` lands inside the magic's argument string. Put it outside.
_QUIET_LINE = re.compile(r"^(\s*(?:[A-Za-z_][\w.]*\s*=\s*)?)%mcp\b(.*?);\s*$")


def quiet_semicolon(lines: list[str]) -> list[str]:
    out = []
    for text in lines:
        match = _QUIET_LINE.match(text)
        if match:
            head, rest = match.groups()
            text = f"{head}get_ipython().run_line_magic('mcp', {rest.strip()!r});\n"
        out.append(text)
    return out


def load_ipython_extension(shell: Any) -> None:
    magics = MCPMagics(shell)
    shell.register_magics(magics)
    shell.configurables.append(magics)  # so that %config MCPMagics lists and sets its traits
    display.register(shell)
    complete = completion.make_completer(lambda: magics.client)
    for key in _COMPLETION_KEYS:
        shell.set_hook("complete_command", complete, str_key=key)
    shell.input_transformers_cleanup.append(quiet_semicolon)


def unload_ipython_extension(shell: Any) -> None:
    manager = shell.magics_manager
    manager.magics["line"].pop("mcp", None)
    manager.magics["cell"].pop("mcp_call", None)
    shell.configurables[:] = [c for c in shell.configurables if not isinstance(c, MCPMagics)]
    display.unregister(shell)
    if quiet_semicolon in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.remove(quiet_semicolon)
    dispatch = shell.strdispatchers.get("complete_command")
    if dispatch is not None:
        for key in _COMPLETION_KEYS:
            dispatch.strs.pop(key, None)
