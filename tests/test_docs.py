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


def _written() -> dict[str, str]:
    """The README, docs/ pages and the demo notebooks, by name."""
    root = DOCS.parent
    pages = [root / "README.md", *sorted(DOCS.glob("*.md")), *sorted((root / "notebooks").glob("*.ipynb"))]
    return {str(p.relative_to(root)): p.read_text() for p in pages}


def test_every_name_the_docs_import_imports() -> None:
    """``from mcp_notebook… import a, b`` and every dotted ``mcp_notebook.x.y.Name`` the docs
    write resolve: moving a module cannot leave the docs pointing at nothing."""
    import importlib
    import re

    problems = []
    for page, text in _written().items():
        for module, names in re.findall(r"from (mcp_notebook[\w.]*) import ([\w, ]+)", text):
            for name in (n.strip() for n in names.split(",") if n.strip()):
                try:
                    getattr(importlib.import_module(module), name)
                except (ImportError, AttributeError) as e:
                    problems.append(f"{page}: from {module} import {name}: {e}")
        for dotted in set(re.findall(r"\bmcp_notebook(?:\.\w+)+", text)):
            parts = dotted.split(".")
            for i in range(len(parts), 0, -1):
                try:
                    value: object = importlib.import_module(".".join(parts[:i]))
                    break
                except ImportError:
                    continue
            try:
                for attribute in parts[i:]:
                    value = getattr(value, attribute)
            except AttributeError as e:
                problems.append(f"{page}: {dotted}: {e}")
    assert not problems, "\n".join(problems)
