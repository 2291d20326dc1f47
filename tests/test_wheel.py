"""The package as pip installs it: a wheel built by pip from a copy of the checkout (as CI's
clean checkout has it), installed with the demo extra in a fresh venv, then used from a folder
outside the checkout: %load_ext and the quickstart in that venv's IPython, mypy reading its
types, and the demo's view in JupyterLab from a kernel of that venv."""

from __future__ import annotations

import email
import json
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.checkout import copy_checkout
from support.frontends import APP_FRAME, WAIT_MS, NotebookPage, jupyter_server, write_notebook
from support.peers import ROOT, uv

import mcp_notebook

pytestmark = [pytest.mark.build, pytest.mark.timeout(900)]  # a build and a venv: about two minutes on 2 busy cores
VERSION = mcp_notebook.__version__
# Nothing may come from the source tree: no PYTHONPATH, and commands run elsewhere.
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


@dataclass
class Installed:
    wheel: Path
    python: Path
    workdir: Path  # an empty folder outside the checkout


def _run(args: list[str | Path], cwd: Path, what: str) -> str:
    command = [str(a) for a in args]
    done = subprocess.run(command, cwd=cwd, env=ENV, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{what} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    tmp = tmp_path_factory.mktemp("wheel")
    source, dist, venv, workdir = tmp / "source", tmp / "dist", tmp / "venv", tmp / "work"
    copy_checkout(source)
    workdir.mkdir()
    # Build isolation: pip fetches the build-system's setuptools, as it would for anyone.
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", dist, source], tmp, "pip wheel")
    (wheel,) = dist.glob("*.whl")
    # A venv without pip of its own; uv installs the wheel and its dependencies into it
    # (what pip would install, in a few seconds instead of a minute: its cache is warm).
    _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp, "python -m venv")
    python = venv / "bin" / "python"
    _run([uv(), "pip", "install", "--quiet", "--python", python, f"{wheel}[demo]"], workdir, "uv pip install the wheel")
    _run([sys.executable, "-m", "pip", "--python", python, "check"], workdir, "pip check")
    yield Installed(wheel, python, workdir)


def test_wheel_holds_the_package_its_data_types_and_license(installed: Installed) -> None:
    assert installed.wheel.name == f"mcp_notebook-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
        info = f"mcp_notebook-{VERSION}.dist-info"
        metadata = email.message_from_string(wheel.read(f"{info}/METADATA").decode())
        license_text = wheel.read(f"{info}/licenses/LICENSE").decode()
    tracked = subprocess.run(["git", "ls-files", "mcp_notebook"], cwd=ROOT, capture_output=True, text=True, check=True)
    missing = set(tracked.stdout.split()) - names  # every module, py.typed, the demo's data
    assert not missing, f"not in the wheel: {sorted(missing)}; add them to [tool.setuptools.package-data]"
    assert {"mcp_notebook/py.typed", "mcp_notebook/demo/data/penguins.csv"} <= names
    assert not [n for n in names if not n.startswith(("mcp_notebook/", f"{info}/"))]  # no tests, bench, docs
    assert license_text == (ROOT / "LICENSE").read_text()
    assert metadata["Version"] == VERSION
    assert metadata["License-Expression"] == "MIT"
    assert "Framework :: Jupyter" in metadata.get_all("Classifier", [])
    demo = [r for r in metadata.get_all("Requires-Dist", []) if r.startswith("mcp") and 'extra == "demo"' in r]
    assert demo and "==" not in demo[0].split(";")[0], demo
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert metadata.get_payload().strip() == (ROOT / "README.md").read_text().strip()  # PyPI's page


def test_installed_package_is_the_wheel_and_knows_its_version(installed: Installed) -> None:
    code = (
        "import importlib.metadata, json, mcp_notebook\n"
        "from mcp_notebook.core.session.session import CLIENT_INFO\n"
        "print(json.dumps([mcp_notebook.__file__, importlib.metadata.version('mcp-notebook'), CLIENT_INFO]))"
    )
    where, metadata_version, client_info = json.loads(_run([installed.python, "-c", code], installed.workdir, "import"))
    assert Path(where).is_relative_to(installed.python.parent.parent), where  # the venv's copy, not the checkout
    assert metadata_version == VERSION
    assert client_info == {"name": "mcp-notebook", "version": VERSION}


def test_quickstart_runs_from_the_installed_wheel(installed: Installed) -> None:
    # The demo server is started as `{sys.executable} -m mcp_notebook.demo`: the wheel's own,
    # reading the penguins from the wheel's data.
    script = installed.workdir / "quickstart.ipy"
    script.write_text((ROOT / "examples" / "quickstart.ipy").read_text())
    ipython = installed.python.parent / "ipython"
    out = _run([ipython, "--no-banner", "--colors=nocolor", script], installed.workdir, "the quickstart")
    assert "✓ demo: penguins" in out and "7 tools, 4 resources, 1 prompt" in out
    assert "5076.0" in out  # Gentoo's mean body mass, from the CSV resource
    assert "query_penguins" in out and "connected" in out
    assert "Traceback" not in out and "Error" not in out, out


def test_the_command_is_installed_with_the_wheel(installed: Installed) -> None:
    """The console script the wheel declares, run from the venv: a call to the wheel's demo."""
    command = installed.python.parent / "mcp-notebook"
    out = _run([command, "--format", "json", "call", "demo.query_penguins", "species=Gentoo", "limit=1", "--",
                installed.python, "-m", "mcp_notebook.demo"], installed.workdir, "mcp-notebook call")  # fmt: skip
    assert json.loads(out)["structuredContent"]["count"] == 124
    assert _run([command, "--version"], installed.workdir, "mcp-notebook --version") == f"mcp-notebook {VERSION}\n"


def test_a_view_ships_in_the_wheel(installed: Installed) -> None:
    """MCP Apps from the installed wheel: the frame's module (anywidget loads it from the
    package, nothing from a CDN) and the demo's view, served by the wheel's demo server."""
    code = (
        "import json, sys\n"
        "from mcp_notebook import Client\n"
        "from pathlib import Path\n"
        "import mcp_notebook.notebook.appview as appview\n"
        "server = Client().add('demo', sys.executable, ['-m', 'mcp_notebook.demo'])\n"
        "tool = next(t for t in server.list_tools() if t.name == 'plot_penguins')\n"
        "content = server.read_resource(tool.app).raw['contents'][0]\n"
        "esm = Path(appview.__file__).with_name('static') / 'appview.js'\n"
        "print(json.dumps([str(esm), esm.read_text(), content['mimeType'], content['text']]))"
    )
    esm, module, mime, html = json.loads(_run([installed.python, "-c", code], installed.workdir, "the demo's view"))
    assert Path(esm).is_relative_to(installed.python.parent.parent), esm  # the venv's copy
    assert "export default" in module and "sandbox" in module
    assert mime == "text/html;profile=mcp-app"
    assert "<svg" in html and "ui/initialize" in html and "http" not in html.replace(SVG_NS, "")  # nothing fetched


SVG_NS = "http://www.w3.org/2000/svg"


def test_installed_package_is_typed_for_its_users(installed: Installed) -> None:
    """py.typed: mypy reads the installed package's annotations (without it: 'missing
    library stubs or py.typed marker')."""
    (installed.workdir / "use.py").write_text(
        "from mcp_notebook import get_client\n\nreveal_type(get_client().add('demo', 'python').call_tool)\n"
    )
    mypy = [sys.executable, "-m", "mypy", "--strict", "--python-executable", installed.python]
    out = _run([*mypy, "--cache-dir", ".mypy_cache", "use.py"], installed.workdir, "mypy on code using the package")
    assert "-> mcp_notebook.core.types.CallResult" in out, out


@pytest.mark.browser
def test_a_view_renders_from_the_wheel_in_jupyterlab(installed: Installed, browser: Any, tmp_path: Path) -> None:
    """The installed wheel in a person's Jupyter: a kernel of that venv (ipykernel added, as
    any Jupyter install has it) in JupyterLab in Chromium draws the demo's view, the frame's
    module coming from the wheel."""
    add = [uv(), "pip", "install", "--quiet", "--python", installed.python, "ipykernel"]
    _run(add, installed.workdir, "uv pip install ipykernel")
    share = tmp_path / "share"
    (share / "kernels" / "wheel").mkdir(parents=True)
    argv = [str(installed.python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec = {"argv": argv, "display_name": "wheel", "language": "python"}
    (share / "kernels" / "wheel" / "kernel.json").write_text(json.dumps(spec))
    cells = [
        "import mcp_notebook\nprint('FROM', mcp_notebook.__file__)\n%load_ext mcp_notebook",
        f"%mcp add demo -- {installed.python} -m mcp_notebook.demo\n%mcp call demo.plot_penguins",
    ]
    write_notebook(tmp_path / "wheel.ipynb", cells, "wheel")
    for url in jupyter_server(tmp_path, kernels=share):
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        nb = NotebookPage(page, f"{url}/lab/tree/wheel.ipynb", "wheel")
        nb.run_all(0, 1)
        where = nb.output(0).split("FROM ", 1)[1].split()[0]
        assert Path(where).is_relative_to(installed.python.parent.parent), where  # the wheel's, not the checkout
        drawn = nb.cell(1).frame_locator(APP_FRAME).locator("#status", has_text=re.compile(r"^\d+ penguins$"))
        drawn.wait_for(timeout=WAIT_MS)
        nb.page.close()
