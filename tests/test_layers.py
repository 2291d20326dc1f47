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


def test_import_mcp_notebook_is_cheap() -> None:
    loaded = _modules_after("import mcp_notebook")
    assert not [m for m in loaded if m.split(".")[0] in (*HEAVY, "jsonschema", "httpx", "asyncio")]


def test_public_api_resolves() -> None:
    import mcp_notebook

    for name in mcp_notebook.__all__:
        assert getattr(mcp_notebook, name) is not None
