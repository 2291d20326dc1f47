"""Input transformers for cells that use %mcp.

- ``%mcp …;`` and ``x = %mcp …;``: IPython hides a cell's value when its code ends in
  ``;``, but a magic's ``;`` lands inside the magic's argument string. It is moved out.
- On ipykernel 7, a cell that waits while a person answers must *await* for widget clicks
  to reach it (measured: a blocked cell never gets them on 7.4). So the magics that can
  prompt (call, map, read, prompt, %%mcp_call; add, restart and login, which may show an
  OAuth login card) become ``await`` expressions there, at the top
  level of a cell; IPython then runs the cell asynchronously. Elsewhere they stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["ASYNC_SUBCOMMANDS", "CELL_RUNNER", "LINE_RUNNER", "make_transformer"]

ASYNC_SUBCOMMANDS = ("call", "map", "read", "prompt", "add", "restart", "login")
LINE_RUNNER = "__mcp_line__"
CELL_RUNNER = "__mcp_cell__"

_LINE = re.compile(r"^(?P<head>(?:[A-Za-z_][\w.]*\s*=\s*)?)%mcp\b(?P<rest>.*?)(?P<semi>;?)\s*$")


def make_transformer(make_async: bool) -> Callable[[list[str]], list[str]]:
    def transform(lines: list[str]) -> list[str]:
        if make_async and lines and lines[0].startswith("%%mcp_call"):
            first = lines[0][len("%%mcp_call") :].strip()
            body = "".join(lines[1:])
            return [f"await {CELL_RUNNER}({first!r}, {body!r})\n"]
        out = []
        for text in lines:
            match = _LINE.match(text)  # top level only: `await` is not allowed inside a def
            if match:
                rest = match["rest"].strip()
                sub = rest.split(maxsplit=1)[0] if rest else ""
                if make_async and sub in ASYNC_SUBCOMMANDS:
                    text = f"{match['head']}await {LINE_RUNNER}({rest!r}){match['semi']}\n"
                elif match["semi"]:
                    text = f"{match['head']}get_ipython().run_line_magic('mcp', {rest!r});\n"
            out.append(text)
        return out

    return transform
