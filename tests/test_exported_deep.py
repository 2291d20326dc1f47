"""An exported test of a result nested 300 deep (deeper than Python's parser takes in one
expression) still compiles, and passes against the server it was recorded from:
``%mcp history --export PATH --pytest --exact`` against tests/servers/hostile_shapes.py."""

from __future__ import annotations

import os
import py_compile
import subprocess
import sys
from pathlib import Path

from support.peers import ROOT, SERVERS
from support.shells import extension_loaded, run

from mcp_notebook.runtime.client import get_client


def test_an_exported_test_of_a_deep_result_compiles_and_passes(tmp_path: Path) -> None:
    exported = tmp_path / "test_deep.py"
    script = tmp_path / "replay.py"
    with extension_loaded() as ip:
        run(ip, f"%mcp add deepsrv -- {sys.executable} {SERVERS / 'hostile_shapes.py'}")
        try:
            run(ip, "%mcp call deepsrv.deep depth=300")
            run(ip, "%mcp call deepsrv.deep depth=3")
            run(ip, f"%mcp history deepsrv --export {exported} --pytest --exact")
            run(ip, f"%mcp history deepsrv --export {script}")
        finally:
            get_client().remove("deepsrv")
    py_compile.compile(str(exported), doraise=True)
    py_compile.compile(str(script), doraise=True)
    text = exported.read_text()
    assert text.count("\ndef test_") == 2
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", str(exported)]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]
