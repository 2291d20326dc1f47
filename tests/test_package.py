"""What PyPI and pip see: one version everywhere, a README that renders there, extras that
resolve beside other packages."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from pathlib import Path

import mcp_notebook
import mcp_notebook.version
from mcp_notebook.core.session.session import CLIENT_INFO

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# [text](target), ![alt](target), [label]: target, and HTML src=/href=
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)|^\s*\[[^\]]+\]:\s*(\S+)|(?:src|href)\s*=\s*[\"']([^\"']+)", re.M)


def _targets(markdown: str) -> list[str]:
    without_code = re.sub(r"```.*?```|`[^`\n]*`", "", markdown, flags=re.S)
    return [next(g for g in m.groups() if g) for m in LINK.finditer(without_code)]


def test_version_has_one_source() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mcp_notebook.version.__version__"}
    # A plain literal, so that setuptools reads it without importing the package.
    tree = ast.parse((ROOT / "mcp_notebook/version.py").read_text())
    literals = [
        node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets] == ["__version__"]
        and isinstance(node.value, ast.Constant)
    ]
    assert literals == [mcp_notebook.__version__] and mcp_notebook.__version__ is mcp_notebook.version.__version__
    assert CLIENT_INFO == {"name": "mcp-notebook", "version": mcp_notebook.__version__}  # what servers are told
    assert importlib.metadata.version("mcp-notebook") == mcp_notebook.__version__
    assert f"## [{mcp_notebook.__version__}]" in (ROOT / "CHANGELOG.md").read_text()


def test_readme_links_and_images_are_absolute() -> None:
    """PyPI shows the README with no repository around it: a relative link or image breaks."""
    repository = PYPROJECT["project"]["urls"]["Repository"]  # the one place it is declared
    targets = _targets((ROOT / "README.md").read_text())
    assert len(targets) >= 10  # the parser finds the links (docs, screenshots)
    relative = [t for t in targets if not t.startswith("https://")]
    assert not relative, f"README.md: make these absolute ({repository}/blob/main/…): {relative}"
    raw = repository.replace("https://github.com/", "https://raw.githubusercontent.com/") + "/main/"
    for target in targets:
        if target.startswith((f"{repository}/blob/main/", f"{repository}/tree/main/", raw)):
            path = target.split("/main/", 1)[1].split("#")[0]
            assert (ROOT / path).exists(), f"README.md links to {path}, which is not in the repository"
        else:
            assert not target.startswith("https://github.com/mcp-notebook/"), target  # another branch or form
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)", (ROOT / "README.md").read_text())
    assert images and all(i.startswith(raw) for i in images), images  # a blob/ URL is an HTML page, not a picture


def test_readme_leads_with_the_two_commands_then_pip() -> None:
    readme = (ROOT / "README.md").read_text()
    first_block = readme.split("```bash", 1)[1].split("```", 1)[0].split()
    assert first_block[0] == "scripts/quickstart" and "scripts/test" in first_block
    installs = re.findall(r"^pip install (\S+)", readme, flags=re.M)
    assert installs[:2] == ["mcp-notebook", '"mcp-notebook[demo]"'], installs


def test_user_extras_are_ranges() -> None:
    """A pin in an extra users install breaks their resolver next to anything else that uses mcp."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    for name in ("demo", "notebooks", "dask"):
        pinned = [req for req in extras[name] if "==" in req]
        assert not pinned, (name, pinned)
