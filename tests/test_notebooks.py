"""Every notebook in notebooks/ runs top to bottom in a real kernel through nbclient, as a
headless runner would (nobody answers prompts: the headless policy does), and is stored
without outputs.

With MCP_NOTEBOOK_BINDER=1 (.ci/run sets it) they run on Binder's build instead of the test
venv, checked the way it can be without Docker: a copy of the repository, a fresh venv from
binder/requirements.txt (installed from the copy's root, as repo2docker does; by uv, not
repo2docker's pip, to save a minute: the same requirements), binder/postBuild run there with
a temporary HOME, and each notebook in that venv's kernel. Each notebook runs once either way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from support.checkout import copy_checkout
from support.peers import ROOT, uv

BINDER = bool(os.environ.get("MCP_NOTEBOOK_BINDER"))
pytestmark = [pytest.mark.kernel, pytest.mark.timeout(900), *([pytest.mark.build] if BINDER else [])]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@dataclass
class Kernel:
    name: str
    folder: Path  # where the notebooks are (the repository the kernel's environment was built from)
    env: dict[str, str]  # what the kernel finds: `python` (the demo server) and `node`, as a reader's machine would


def _binder(tmp: Path) -> Kernel:
    repo, home, venv = tmp / "repo", tmp / "home", tmp / "venv"
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
    # That venv's kernel, found through JUPYTER_PATH; its bin first on PATH, as on Binder.
    spec = tmp / "share" / "jupyter" / "kernels" / "binder"
    spec.mkdir(parents=True)
    spec.joinpath("kernel.json").write_text(json.dumps(
        {"argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": "binder",
         "language": "python"}))  # fmt: skip
    path = f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"
    return Kernel("binder", repo / "notebooks", {"JUPYTER_PATH": str(tmp / "share" / "jupyter"), "PATH": path,
                                                 "HOME": str(home)})  # fmt: skip


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    if BINDER:
        yield _binder(tmp_path_factory.mktemp("binder"))
    else:
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        yield Kernel("python3", ROOT / "notebooks", {"PATH": path})


def test_binder_installs_the_node_servers_and_no_dev_tools(kernel: Kernel) -> None:
    if not BINDER:
        pytest.skip("the Binder check builds a venv (a minute): MCP_NOTEBOOK_BINDER=1 runs it (.ci/run does)")
    repo = kernel.folder.parent
    assert (repo / "node_modules/@modelcontextprotocol/server-everything/dist/index.js").exists()
    assert (repo / "node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js").exists()  # apps.ipynb
    assert not (repo / "node_modules/@modelcontextprotocol/conformance").exists()  # a dev tool: not on Binder


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_headless(path: Path, kernel: Kernel, monkeypatch: pytest.MonkeyPatch) -> None:
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") and not c.get("execution_count") for c in nb.cells if c.cell_type == "code"), (
        f"{path.name} is stored with outputs: clear them"
    )
    for key, value in kernel.env.items():
        monkeypatch.setenv(key, value)
    folder = str(kernel.folder)
    NotebookClient(nb, timeout=120, kernel_name=kernel.name, resources={"metadata": {"path": folder}}).execute()
    # A cell that waits for a person is tagged raises-exception: headless, its one-line
    # error (the policy's answer) is the expected output; any other error fails.
    errors = [o for c in nb.cells if "raises-exception" not in c.metadata.get("tags", [])
              for o in c.get("outputs", []) if o.get("output_type") == "error"]  # fmt: skip
    assert not errors, errors
    texts = [
        o.get("text", "") + str(o.get("data", {}).get("text/plain", "")) for c in nb.cells for o in c.get("outputs", [])
    ]
    assert any("✓" in t for t in texts), "the server did not connect"
