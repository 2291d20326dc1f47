"""Binder, checked the way it can be without Docker: a copy of the repository, a fresh venv
from binder/requirements.txt (installed from the copy's root, as repo2docker does; by uv,
not repo2docker's pip, to save a minute: the same requirements), binder/postBuild run there
with a temporary HOME, then every notebook run in that venv's kernel, headless, side by
side (each its own kernel)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from support.checkout import copy_checkout
from support.peers import uv

pytestmark = [pytest.mark.build, pytest.mark.kernel, pytest.mark.timeout(900)]


@pytest.fixture(autouse=True)
def asked_for() -> None:
    """Opt-in: it builds a venv (a few minutes). .ci/run asks for it."""
    if not os.environ.get("MCP_NOTEBOOK_BINDER"):
        pytest.skip("the Binder check builds a venv (a few minutes): MCP_NOTEBOOK_BINDER=1 runs it (.ci/run does)")


def test_binder_build_runs_the_notebooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, home, venv = tmp_path / "repo", tmp_path / "home", tmp_path / "venv"
    copy_checkout(repo)
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = subprocess.run([uv(), "pip", "install", "--quiet", "--python", str(python), "-r", "binder/requirements.txt"],
                         cwd=repo, env=env, capture_output=True, text=True)  # fmt: skip
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    post = subprocess.run(["bash", "binder/postBuild"], cwd=repo, env=env, capture_output=True, text=True)
    assert post.returncode == 0, post.stdout[-2000:] + post.stderr[-2000:]
    assert (repo / "node_modules/@modelcontextprotocol/server-everything/dist/index.js").exists()
    assert not (repo / "node_modules/@modelcontextprotocol/conformance").exists()  # a dev tool: not on Binder
    # That venv's kernel, found through JUPYTER_PATH; its bin first on PATH, as on Binder.
    spec = tmp_path / "share" / "jupyter" / "kernels" / "binder"
    spec.mkdir(parents=True)
    spec.joinpath("kernel.json").write_text(json.dumps(
        {"argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": "binder",
         "language": "python"}))  # fmt: skip
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "share" / "jupyter"))
    monkeypatch.setenv("PATH", f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(home))
    paths = sorted((repo / "notebooks").glob("*.ipynb"))
    notebooks = [nbformat.read(path, as_version=4) for path in paths]
    clients = [NotebookClient(nb, timeout=120, kernel_name="binder", resources={"metadata": {"path": str(path.parent)}})
               for path, nb in zip(paths, notebooks, strict=True)]  # fmt: skip

    async def run_all() -> None:
        await asyncio.gather(*(client.async_execute() for client in clients))

    asyncio.run(run_all())
    for path, nb in zip(paths, notebooks, strict=True):
        errors = [o for c in nb.cells if "raises-exception" not in c.metadata.get("tags", [])
                  for o in c.get("outputs", []) if o.get("output_type") == "error"]  # fmt: skip
        assert not errors, (path.name, errors)
