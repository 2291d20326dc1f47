"""Settings from IPython's own config (a profile's ipython_config.py, --MCPMagics.x=… on the
command line), as jupysql users set their magics: they apply at %load_ext."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CHECK = "\n".join(
    [
        "%load_ext mcp_notebook",
        "from mcp_notebook import get_client",
        "from mcp_notebook.notebook import MCPMagics",
        "from mcp_notebook.commands import display",
        "magics = [c for c in get_ipython().configurables if isinstance(c, MCPMagics)]",
        "print('SETTINGS', len(magics), display.options.max_rows, get_client().settings.request_timeout)",
    ]
)


def ipython(tmp_path: Path, *options: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "IPython", "--no-banner", "--colors=nocolor", "--HistoryManager.enabled=False",
         *options, "-c", CHECK],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env={"IPYTHONDIR": str(tmp_path / "ipython"),
        "PATH": str(Path(sys.executable).parent)},
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_command_line_settings_apply_at_load(tmp_path: Path) -> None:
    out = ipython(tmp_path, "--MCPMagics.max_rows=7", "--MCPMagics.request_timeout=120")
    # One MCPMagics in shell.configurables, so that %config lists and sets it once.
    assert "SETTINGS 1 7 120.0" in out


def test_profile_settings_apply_at_load(tmp_path: Path) -> None:
    profile = tmp_path / "ipython" / "profile_default"
    profile.mkdir(parents=True)
    (profile / "ipython_config.py").write_text("c.MCPMagics.request_timeout = 120\nc.MCPMagics.max_rows = 9\n")
    assert "SETTINGS 1 9 120.0" in ipython(tmp_path)
