"""The docs say what the code does (the magic reference is the commands' own help), the README
is a landing page, and every link between the pages leads somewhere."""

from __future__ import annotations

import re
from pathlib import Path

from mcp_notebook import commands
from mcp_notebook.notebook import reference

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def test_magic_reference_is_current() -> None:
    written = (DOCS / "magics.md").read_text()
    assert written == reference.markdown(), (
        "docs/magics.md is stale: python -m mcp_notebook.notebook.reference > docs/magics.md"
    )
    for name in commands.COMMANDS:
        assert f"`%mcp {name}" in written


def _written() -> dict[str, str]:
    """The README, docs/ pages and the demo notebooks, by name."""
    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md")), *sorted((ROOT / "notebooks").glob("*.ipynb"))]
    return {str(p.relative_to(ROOT)): p.read_text() for p in pages}


def test_every_name_the_docs_import_imports() -> None:
    """``from mcp_notebook… import a, b`` and every dotted ``mcp_notebook.x.y.Name`` the docs
    write resolve: moving a module cannot leave the docs pointing at nothing."""
    import importlib

    problems = []
    for page, text in _written().items():
        for module, names in re.findall(r"from (mcp_notebook[\w.]*) import ([\w, ]+)", text):
            for name in (n.strip() for n in names.split(",") if n.strip()):
                try:
                    getattr(importlib.import_module(module), name)
                except (ImportError, AttributeError) as e:
                    problems.append(f"{page}: from {module} import {name}: {e}")
        for dotted in set(re.findall(r"\bmcp_notebook(?:\.\w+)+", text)):
            parts = dotted.split(".")
            for i in range(len(parts), 0, -1):
                try:
                    value: object = importlib.import_module(".".join(parts[:i]))
                    break
                except ImportError:
                    continue
            try:
                for attribute in parts[i:]:
                    value = getattr(value, attribute)
            except AttributeError as e:
                problems.append(f"{page}: {dotted}: {e}")
    assert not problems, "\n".join(problems)


# The README is also PyPI's page, so it links the repository's files absolutely; docs pages link
# each other relatively. Both forms name a file in this checkout, and maybe a heading in it.
REPOSITORY = "https://github.com/mcp-notebook/mcp-notebook"
ABSOLUTE = (
    f"{REPOSITORY}/blob/main/",
    f"{REPOSITORY}/tree/main/",
    f"{REPOSITORY.replace('github.com', 'raw.githubusercontent.com')}/main/",
)
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)|^\s*\[[^\]]+\]:\s*(\S+)", re.M)
FENCED = re.compile(r"^```.*?^```", re.M | re.S)


def _links(markdown: str) -> list[str]:
    """Every link and image target outside code."""
    prose = re.sub(r"`[^`\n]*`", "", FENCED.sub("", markdown))
    return [next(g for g in m.groups() if g) for m in LINK.finditer(prose)]


def _anchors(markdown: str) -> set[str]:
    """The ids GitHub gives a page's headings: lowercase, punctuation dropped, spaces to '-',
    a repeated one numbered."""
    seen: dict[str, int] = {}
    anchors = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", FENCED.sub("", markdown), flags=re.M):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        anchors.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return anchors


def _local(page: Path, target: str) -> tuple[Path, str] | None:
    """The file in this checkout a link names, and its #anchor ('' for none); None for the web."""
    for prefix in ABSOLUTE:
        if target.startswith(prefix):
            target = str(ROOT / target[len(prefix) :])
            break
    else:
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            return None
        target = str(page.parent / target) if not target.startswith("#") else f"{page}{target}"
    path, _, anchor = target.partition("#")
    return Path(path).resolve(), anchor


PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def test_readme_is_a_landing_page() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move detail to a page under docs/ and link it"


def test_readme_starts_with_the_two_commands() -> None:
    """A newcomer on a fresh machine reads these first, as they are."""
    first_block = FENCED.search((ROOT / "README.md").read_text())
    assert first_block is not None
    lines = first_block.group(0).splitlines()
    assert lines[1:3] == [
        "scripts/quickstart     # the main job: set up, then the quickstart against the bundled demo server",
        "scripts/test           # the tests: set up, lint, run pytest against real MCP servers",
    ], lines


def test_every_link_to_a_page_or_picture_resolves() -> None:
    problems = []
    for page in PAGES:
        name = page.relative_to(ROOT)
        for target in _links(page.read_text()):
            if page != ROOT / "README.md" and target.startswith(ABSOLUTE):
                problems.append(f"{name}: {target}: link another page relatively, as the docs do")
            local = _local(page, target)
            if local is None:
                continue
            path, anchor = local
            if not path.exists():
                problems.append(f"{name}: {target}: there is no {path.relative_to(ROOT)}")
            elif anchor and anchor not in _anchors(path.read_text()):
                problems.append(f"{name}: {target}: {path.relative_to(ROOT)} has no heading #{anchor}")
    assert not problems, "\n".join(problems)


def test_every_docs_page_and_picture_is_linked() -> None:
    """A page nothing links to is a page nobody finds."""
    linked = set()
    for page in PAGES:
        for target in _links(page.read_text()):
            local = _local(page, target)
            if local is not None and local[0] != page.resolve():
                linked.add(local[0])
    unlinked = [p.name for p in sorted(DOCS.iterdir()) if p.suffix in (".md", ".png") and p.resolve() not in linked]
    assert not unlinked, f"link these from the README or another docs page: {unlinked}"
