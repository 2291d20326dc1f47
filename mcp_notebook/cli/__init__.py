"""The ``mcp-notebook`` command line: a front on the same subcommands as the magics
(mcp_notebook/commands), beside the notebook layer and importing none of it.

main.py runs one subcommand; line.py reads the command line's own options; source.py
starts the servers a subcommand names (saved ones, or one given on the line); output.py
prints the value (text, json, csv, markdown); asking.py asks a person on the terminal;
exits.py says what the exit status means.
"""

from __future__ import annotations

from .main import main

__all__ = ["main"]
