"""Prompts where no widget can answer: terminal IPython (stdin) and headless runs (nbclient)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
from conftest import EVERYTHING, node
from kernels import text_of
from nbclient import NotebookClient

DEMO = f"{sys.executable} -m mcp_notebook.demo"


def test_terminal_ipython_asks_on_stdin(tmp_path: Path) -> None:
    lines = [
        "%load_ext mcp_notebook",
        f"%mcp add demo -- {DEMO}",
        "r = %mcp call demo.delete_penguins species=Gentoo",
        "a",  # the answer to the approval prompt
        "print('RESULT', r.text)",
        "r = %mcp call demo.add_observation",
        "a",  # accept the form, then its fields
        "Gentoo",
        "Biscoe",
        "6000",
        "",  # sex: the default
        "print('RESULT', r.text)",
        "%mcp call demo.delete_penguins species=Adelie",
        "d",  # deny
        "exit",
    ]
    out = subprocess.run(
        [sys.executable, "-m", "IPython", "--simple-prompt", "--no-banner", "--colors=nocolor"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert "Approve demo.delete_penguins" in out.stdout
    assert "RESULT deleted 124 Gentoo penguins" in out.stdout
    assert "demo asks: Describe the penguin you saw" in out.stdout
    assert "RESULT recorded a female Gentoo of 6000 g on Biscoe" in out.stdout
    assert "demo.delete_penguins was denied; nothing was sent" in out.stdout + out.stderr


def test_headless_notebook_follows_the_policy(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext mcp_notebook"),
        nbformat.v4.new_code_cell("%mcp add demo -- python -m mcp_notebook.demo"),
        nbformat.v4.new_code_cell("%mcp call demo.delete_penguins species=Gentoo"),
        nbformat.v4.new_code_cell("r = %mcp call demo.add_observation\nr.text"),
        nbformat.v4.new_code_cell("%config MCPMagics.headless_approval = 'allow'"),
        nbformat.v4.new_code_cell("r = %mcp call demo.delete_penguins species=Gentoo\nr.text"),
        nbformat.v4.new_code_cell(f"%mcp add everything -- {node()} {EVERYTHING} stdio"),
        nbformat.v4.new_code_cell("%mcp call everything.trigger-sampling-request prompt=hi maxTokens=5"),
    ]
    env_path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    os.environ["PATH"], saved = env_path, os.environ.get("PATH", "")
    try:
        NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(tmp_path)}}).execute()  # fmt: skip
    finally:
        os.environ["PATH"] = saved
    texts = [text_of([{"type": o["output_type"], **o} for o in cell.outputs]) for cell in nb.cells]
    denied = texts[2].strip()
    assert "needs approval and nobody can answer here, so it was denied" in denied and "\n" not in denied
    assert "nobody can answer here: decline" in texts[3]
    assert "nothing recorded (the user chose decline)" in texts[3]
    assert "deleted 124 Gentoo" in texts[5] and "headless policy: allow" in texts[5]
    # A sampling request: declined, with how to answer one from code.
    assert "asked for a model reply and nobody can approve one here" in texts[7]
    assert "interaction.sampler" in texts[7]
