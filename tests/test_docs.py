"""The docs say what the code does: the magic reference is the commands' own help."""

from __future__ import annotations

from pathlib import Path

from mcp_notebook.notebook import commands, reference

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_magic_reference_is_current() -> None:
    written = (DOCS / "magics.md").read_text()
    assert written == reference.markdown(), (
        "docs/magics.md is stale: python -m mcp_notebook.notebook.reference > docs/magics.md"
    )
    for name in commands.COMMANDS:
        assert f"`%mcp {name}" in written
