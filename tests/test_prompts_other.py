"""Prompts where no widget can answer: headless runs (nbclient). Terminal IPython: test_terminal.py."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from support.kernels import text_of
from support.peers import EVERYTHING, node

pytestmark = pytest.mark.kernel


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


def test_a_policy_note_is_an_output_of_its_own_in_voila(monkeypatch: pytest.MonkeyPatch) -> None:
    """A note from the client goes to stderr, which Voilà drops from its page: there it is
    an output of its own (text, and HTML with the server's text escaped)."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    from mcp_notebook.notebook.notices import note

    InteractiveShell.instance()
    monkeypatch.delenv("VOILA_SERVER_URL", raising=False)
    monkeypatch.delenv("VOILA_BASE_URL", raising=False)
    text = "mcp-notebook: <b>s</b> asked for input and nobody can answer here: decline"
    with capture_output() as elsewhere:
        note(text)
    assert elsewhere.stderr == text + "\n" and not elsewhere.outputs
    monkeypatch.setenv("VOILA_SERVER_URL", "http://127.0.0.1:8866/")
    with capture_output() as voila:
        note(text)
    (shown,) = voila.outputs
    assert not voila.stderr and shown.data["text/plain"] == text
    assert "&lt;b&gt;s&lt;/b&gt; asked for input" in shown.data["text/html"] and "<b>" not in shown.data["text/html"]
