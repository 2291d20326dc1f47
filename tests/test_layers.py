"""Layering and import cost: checked in fresh interpreters."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("IPython", "ipywidgets", "pandas")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.split())


def test_core_and_runtime_import_no_notebook_stack() -> None:
    loaded = _modules_after(
        "import mcp_notebook.core.session, mcp_notebook.core.config, mcp_notebook.core.naming, "
        "mcp_notebook.core.validation, mcp_notebook.core.transports, mcp_notebook.runtime"
    )
    assert not [m for m in loaded if m.split(".")[0] in HEAVY]


def test_core_and_runtime_never_reach_up_to_the_notebook_layer() -> None:
    """Not even lazily, inside a function: what they need from it is a seam (core/views.py)."""
    import re
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "mcp_notebook"
    upward = re.compile(r"^\s*(from|import)\s+(\.\.notebook|mcp_notebook\.notebook)", re.MULTILINE)
    found = [
        str(p) for layer in ("core", "runtime") for p in (package / layer).rglob("*.py") if upward.search(p.read_text())
    ]
    assert found == []


def test_import_mcp_notebook_is_cheap() -> None:
    loaded = _modules_after("import mcp_notebook")
    assert not [m for m in loaded if m.split(".")[0] in (*HEAVY, "jsonschema", "httpx", "asyncio")]


def test_public_api_resolves() -> None:
    import mcp_notebook

    for name in mcp_notebook.__all__:
        assert getattr(mcp_notebook, name) is not None


def _run_fresh(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_load_ext_imports_pandas_only_for_a_table() -> None:
    # Terminal IPython shows text only: a result's display does not build its HTML table either.
    out = _run_fresh(
        f"""
import sys
from IPython.terminal.interactiveshell import TerminalInteractiveShell
shell = TerminalInteractiveShell.instance()
shell.run_line_magic("load_ext", "mcp_notebook")
print("load_ext", "pandas" in sys.modules)
shell.run_line_magic("mcp", "add demo -- {sys.executable} -m mcp_notebook.demo")
result = shell.run_line_magic("mcp", "call demo.query_penguins limit=2")
shown = shell.display_formatter.format(result)[0]
print("shown", sorted(shown), shown["text/plain"].startswith("{{"), "pandas" in sys.modules)
shell.run_line_magic("mcp", "tools")
print("tools", "pandas" in sys.modules)
shell.run_line_magic("mcp", "remove demo")
"""
    )
    facts = [line for line in out.splitlines() if line.startswith(("load_ext ", "shown ", "tools "))]
    assert facts == ["load_ext False", "shown ['text/plain'] True False", "tools True"]
