"""Layering and import cost.

Import cost is checked in fresh interpreters. The import graph is checked statically: every
module under mcp_notebook/ is parsed, and every import of one of its modules counts — at
module level and inside functions alike (a lazy import is still a dependency); for circles,
imports under ``if TYPE_CHECKING:`` count too (a circle only type checking hides is still a
tangle), for the layers they do not (never run).

Edges. ``from pkg import name`` is an edge to ``pkg.name`` when that is a module, else to
``pkg``'s ``__init__``; ``import a.b`` is an edge to ``a.b``. The parent packages Python
initialises on the way to a submodule are not edges: importing ``core.session`` from
``core/__init__.py`` and ``core.text`` from ``core/session/session.py`` is no circle. A module that
takes a *name* from its package's ``__init__`` (``from . import Thing``) does depend on that
``__init__``, and a circle through it is reported.

Layers, lowest first; a module may import its own layer and those below:
- core: mcp_notebook/core/, errors.py (the exceptions every layer raises; its names are
  public at the package root) and version.py (``__version__``, which the root re-exports).
  These two import nothing of ours (checked);
- runtime: mcp_notebook/runtime/;
- commands: mcp_notebook/commands/, the subcommands, their parser, tables and displays: one
  layer the magics and the command line both stand on. It imports no IPython or ipywidgets;
  pandas only inside tables.py, on first use (checked in fresh interpreters);
- notebook: mcp_notebook/notebook/ (the magics, widgets, cards, app hosting);
- cli: mcp_notebook/cli/ and mcp_notebook/__main__.py, the ``mcp-notebook`` command: a front on
  the commands, beside the notebook (neither imports the other);
- wiring: mcp_notebook/__init__.py, which wires the notebook's renderers into the core's seam
  (core/views.py) and re-exports the public API. No layer below imports it, not even for
  metadata: the core never reaches the root (checked with type-checking imports too).
- dask: mcp_notebook/dask.py, the Dask integration (an optional extra): it runs the runtime's
  map on a cluster's workers, so it sits on core and runtime and no layer imports it;
- demo: mcp_notebook/demo/, a standalone MCP server (the ``mcp`` SDK's): it imports none of
  the client's layers, and none of them imports it.
A module in none of these fails the test until it is placed here.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "mcp_notebook"
HEAVY = ("IPython", "ipywidgets", "pandas")
MAX_LINES = 500

# Layer of a module: the longest prefix listed ("mcp_notebook" itself: the root __init__ only).
LAYERS = {
    "mcp_notebook": "wiring",
    "mcp_notebook.errors": "core",
    "mcp_notebook.version": "core",
    "mcp_notebook.testing": "core",  # the exported tests' assertions: plain functions, for any pytest
    "mcp_notebook.core": "core",
    "mcp_notebook.runtime": "runtime",
    "mcp_notebook.commands": "commands",
    "mcp_notebook.notebook": "notebook",
    "mcp_notebook.cli": "cli",
    "mcp_notebook.__main__": "cli",
    "mcp_notebook.dask": "dask",
    "mcp_notebook.demo": "demo",
}
MAY_IMPORT = {
    "core": {"core"},
    "runtime": {"core", "runtime"},
    "commands": {"core", "runtime", "commands"},
    "notebook": {"core", "runtime", "commands", "notebook"},
    "cli": {"core", "runtime", "commands", "cli"},
    "wiring": {"core", "runtime", "commands", "notebook", "wiring"},
    "dask": {"core", "runtime", "dask"},
    "demo": {"demo"},
}


# -- fresh interpreters --------------------------------------------------------------------


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
        "import mcp_notebook.core.session.session, mcp_notebook.core.config.servers, mcp_notebook.core.naming, "
        "mcp_notebook.core.arguments.validation, mcp_notebook.core.transports, mcp_notebook.core.types, "
        "mcp_notebook.core.tables.frames, mcp_notebook.runtime"
    )
    assert not [m for m in loaded if m.split(".")[0] in HEAVY]


def test_the_commands_and_the_command_line_import_no_notebook_stack() -> None:
    """The subcommands, their parser and displays, and the command line: pandas comes with
    the first table, IPython and ipywidgets never (the notebook layer is not imported)."""
    loaded = _modules_after("import mcp_notebook.commands, mcp_notebook.cli, mcp_notebook.__main__")
    assert not [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith("mcp_notebook.notebook")]


def test_a_results_table_needs_no_notebook() -> None:
    """A script's ``to_frame()`` imports pandas, and neither IPython nor the notebook layer."""
    loaded = _modules_after(
        "from mcp_notebook import CallResult, ReadResult\n"
        "rows = CallResult.from_raw('s', 't', {'content': [], 'structuredContent': {'rows': [{'a': 1}]}}).to_frame()\n"
        "csv = ReadResult.from_raw('s', 'r://t.csv', {'contents': [{'uri': 'r://t.csv', 'text': 'a\\n1\\n'}]})\n"
        "assert rows.equals(csv.to_frame()), (rows, csv.to_frame())"
    )
    assert "pandas" in loaded
    assert not [
        m for m in loaded if m.split(".")[0] in ("IPython", "ipywidgets") or m.startswith("mcp_notebook.notebook")
    ]


def test_import_mcp_notebook_is_cheap() -> None:
    loaded = _modules_after("import mcp_notebook")
    assert not [
        m for m in loaded if m.split(".")[0] in (*HEAVY, "jsonschema", "httpx", "asyncio", "dask", "distributed")
    ]


def test_public_api_resolves() -> None:
    import mcp_notebook

    for name in mcp_notebook.__all__:
        assert getattr(mcp_notebook, name) is not None


def _run_fresh(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_load_ext_imports_pandas_only_for_a_table() -> None:
    # Terminal IPython shows text only: a result's display does not build its HTML table either.
    out = _run_fresh(
        f"""
import sys
from IPython.terminal.interactiveshell import TerminalInteractiveShell
shell = TerminalInteractiveShell.instance()
shell.run_line_magic("load_ext", "mcp_notebook")
print("load_ext", "pandas" in sys.modules)
shell.run_line_magic("mcp", "add demo -- {sys.executable} -m mcp_notebook.demo")
result = shell.run_line_magic("mcp", "call demo.query_penguins limit=2")
shown = shell.display_formatter.format(result)[0]
print("shown", sorted(shown), shown["text/plain"].startswith("{{"), "pandas" in sys.modules)
shell.run_line_magic("mcp", "tools")
print("tools", "pandas" in sys.modules)
shell.run_line_magic("mcp", "remove demo")
"""
    )
    facts = [line for line in out.splitlines() if line.startswith(("load_ext ", "shown ", "tools "))]
    assert facts == ["load_ext False", "shown ['text/plain'] True False", "tools True"]


# -- the import graph, read from the source ------------------------------------------------


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    is_package: bool
    tree: ast.Module

    @property
    def where(self) -> str:
        return str(self.path.relative_to(ROOT))


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the module it depends on
    line: int
    names: tuple[str, ...]  # for ``from target import a, b``: a, b


@cache
def modules() -> dict[str, Module]:
    found = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        name = ".".join(parts)
        found[name] = Module(name, path, is_package, ast.parse(path.read_text(), str(path)))
    return found


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST, *, typing_too: bool) -> Iterator[ast.AST]:
    """Every node under ``node``, skipping ``if TYPE_CHECKING:`` bodies unless ``typing_too``."""
    for child in ast.iter_child_nodes(node):
        yield child
        if isinstance(child, ast.If) and _type_checking(child.test) and not typing_too:
            for other in child.orelse:
                yield other
                yield from _walk(other, typing_too=typing_too)
            continue
        yield from _walk(child, typing_too=typing_too)


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.name.split(".")
    if not module.is_package:
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports(module: Module, *, typing_too: bool = False) -> Iterator[Import]:
    """The package's modules that ``module`` imports (none outside the package)."""
    known = modules()
    for node in _walk(module.tree, typing_too=typing_too):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                # ``import a.b.c``: the deepest of a.b.c, a.b, a that is one of ours
                target = next(
                    (".".join(parts[:i]) for i in range(len(parts), 0, -1) if ".".join(parts[:i]) in known), None
                )
                if target is not None:
                    yield Import(module.name, target, node.lineno, ())
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            if source not in known:
                continue
            names = []
            for alias in node.names:
                if f"{source}.{alias.name}" in known:  # a submodule
                    yield Import(module.name, f"{source}.{alias.name}", node.lineno, ())
                else:
                    names.append(alias.name)
            if names:
                yield Import(module.name, source, node.lineno, tuple(names))


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _private(name: str) -> bool:
    return name.startswith("_") and not _dunder(name)


def graph(*, typing_too: bool = False) -> dict[str, list[Import]]:
    return {name: [e for e in imports(m, typing_too=typing_too) if e.target != name] for name, m in modules().items()}


def layer(name: str) -> str | None:
    if name == PACKAGE:
        return LAYERS[PACKAGE]
    prefixes = [p for p in LAYERS if p != PACKAGE and (name == p or name.startswith(p + "."))]
    return LAYERS[max(prefixes, key=len)] if prefixes else None


def _circles(edges: dict[str, list[Import]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        on_stack.add(name)
        for edge in edges[name]:
            if edge.target not in index:
                visit(edge.target)
                low[name] = min(low[name], low[edge.target])
            elif edge.target in on_stack:
                low[name] = min(low[name], index[edge.target])
        if low[name] == index[name]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == name:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for name in sorted(edges):
        if name not in index:
            visit(name)
    return found


def test_no_import_circles() -> None:
    """Type-only imports count: a type that needs a ``TYPE_CHECKING`` import from a module
    that imports you lives in the wrong module (or the need is a Protocol of your own)."""
    edges = graph(typing_too=True)
    problems = []
    for component in _circles(edges):
        inside = set(component)
        how = [
            f"{modules()[e.source].where}:{e.line} imports {e.target}"
            for name in component
            for e in edges[name]
            if e.target in inside
        ]
        problems.append(f"circle of {len(component)} modules {', '.join(component)}: {'; '.join(how)}")
    assert not problems, "\n".join(problems)


# Inside the core and the runtime: rooms (subpackages, or a module standing alone), lowest
# first. A module may import its own room and the rooms listed before it, never one after:
# so someone reading the tree knows what each room can reach. A package's __init__ may
# re-export its own subpackages (transports/__init__.py re-exports stdio/ and http/).
ROOMS = [
    "mcp_notebook.errors",
    "mcp_notebook.version",
    "mcp_notebook.testing",
    "mcp_notebook.core.safety",  # what we show of untrusted text and secrets
    "mcp_notebook.core.arguments",
    "mcp_notebook.core.backoff",
    "mcp_notebook.core.tables",
    "mcp_notebook.core.protocol",  # the protocol's rules, sans-IO
    "mcp_notebook.core.loggers",
    "mcp_notebook.core.views",
    "mcp_notebook.core.types",
    "mcp_notebook.core.naming",
    "mcp_notebook.core.listings",
    "mcp_notebook.core.approval",
    "mcp_notebook.core.auth",
    "mcp_notebook.core.config",
    "mcp_notebook.core.transports",  # base.py (the seams) and inbox.py
    "mcp_notebook.core.transports.stdio",
    "mcp_notebook.core.transports.http",
    "mcp_notebook.core.history",
    "mcp_notebook.core.session",
    "mcp_notebook.core",
    "mcp_notebook.runtime.loop",
    "mcp_notebook.runtime.asking",  # how a person is asked outside a notebook
    "mcp_notebook.runtime.steps",
    "mcp_notebook.runtime.bulk",
    "mcp_notebook.runtime.functions",
    "mcp_notebook.runtime.params",
    "mcp_notebook.runtime.reads",
    "mcp_notebook.runtime.listening",
    "mcp_notebook.runtime.context",
    "mcp_notebook.runtime.slots",
    "mcp_notebook.runtime.sessionlink",
    "mcp_notebook.runtime.tasks",
    "mcp_notebook.runtime.calls",
    "mcp_notebook.runtime.connection",
    "mcp_notebook.runtime.entries",  # a server's tools and prompts by name
    "mcp_notebook.runtime.facts",
    "mcp_notebook.runtime.skills",
    "mcp_notebook.runtime.handle",
    "mcp_notebook.runtime.client",
    "mcp_notebook.runtime",
]


def room(name: str) -> str | None:
    """The room of a module of the core or the runtime (the longest listed prefix); None: elsewhere."""
    found = [r for r in ROOMS if name == r or name.startswith(r + ".")]
    return max(found, key=len) if found else None


def test_the_rooms_import_only_rooms_below_them() -> None:
    edges = graph(typing_too=True)
    problems = []
    unplaced = sorted(
        n
        for n in modules()
        if n.startswith(("mcp_notebook.core.", "mcp_notebook.runtime."))
        and room(n) in ("mcp_notebook.core", "mcp_notebook.runtime")
        and not modules()[n].is_package
    )
    for name in unplaced:
        problems.append(f"{modules()[name].where}: in no room; place it in ROOMS (tests/test_layers.py)")
    for name, module in modules().items():
        mine = room(name)
        if mine is None:
            continue
        for edge in edges[name]:
            theirs = room(edge.target)
            if theirs is None or theirs == mine:
                continue
            if module.is_package and edge.target.startswith(name + "."):
                continue  # a package re-exports its own
            if ROOMS.index(theirs) > ROOMS.index(mine):
                problems.append(f"{module.where}:{edge.line}: {mine} imports {edge.target}, a room above it ({theirs})")
    assert not problems, "\n".join(problems)


def test_imports_point_down_the_layers() -> None:
    edges = graph()
    problems = []
    for name, module in modules().items():
        mine = layer(name)
        if mine is None:
            problems.append(f"{module.where}: in no layer; place it in LAYERS (tests/test_layers.py) and say why")
            continue
        for edge in edges[name]:
            theirs = layer(edge.target)
            if theirs is not None and theirs not in MAY_IMPORT[mine]:
                problems.append(
                    f"{module.where}:{edge.line}: the {mine} layer imports {edge.target} ({theirs} layer), "
                    f"and may import only {', '.join(sorted(MAY_IMPORT[mine]))}"
                )
    assert not problems, "\n".join(problems)


def test_errors_and_version_import_nothing_of_ours() -> None:
    """Every module raises the exceptions (and may take the version): the modules holding
    them sit below everything and import none of the package's modules."""
    found = [
        f"{modules()[e.source].where}:{e.line}: imports {e.target}"
        for name in (f"{PACKAGE}.errors", f"{PACKAGE}.version")
        for e in imports(modules()[name], typing_too=True)
    ]
    assert not found, "\n".join(found)


def test_the_core_never_imports_the_package_root() -> None:
    """``import mcp_notebook``, ``from .. import x`` of the root's own names: the root imports
    the core (and wires the notebook in), so the core reaching back would be a circle
    through the wiring. Imports made only for type checking count too."""
    found = [
        f"{modules()[e.source].where}:{e.line}: imports the package root"
        + (f" ({', '.join(e.names)})" if e.names else "")
        for name, m in modules().items()
        if layer(name) == "core"
        for e in imports(m, typing_too=True)
        if e.target == PACKAGE
    ]
    assert not found, "\n".join(found) + "\ntake it from the module that defines it (the version: mcp_notebook.version)"


def test_no_module_is_too_long() -> None:
    long = [
        f"{m.where}: {n} lines (at most {MAX_LINES}: split it by job)"
        for m in modules().values()
        if (n := len(m.path.read_text().splitlines())) > MAX_LINES
    ]
    assert not long, "\n".join(long)


def _private_uses(module: Module) -> Iterator[str]:
    """``from x import _y``, and ``import x`` (or ``from pkg import x``) then ``x._y``, for x
    one of the package's modules other than this one."""
    known = modules()
    bound: dict[str, str] = {}  # a local name -> the module it is bound to
    for node in _walk(module.tree, typing_too=True):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    bound[alias.asname or PACKAGE] = alias.name if alias.asname else PACKAGE
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            if source.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                if _private(alias.name):
                    yield f"{module.where}:{node.lineno}: from {source} import {alias.name}"
                elif f"{source}.{alias.name}" in known:
                    bound[alias.asname or alias.name] = f"{source}.{alias.name}"
    for node in _walk(module.tree, typing_too=True):
        if not isinstance(node, ast.Attribute):
            continue
        chain = []
        value: ast.expr = node
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if not isinstance(value, ast.Name) or value.id not in bound:
            continue
        target = bound[value.id]
        for attr in reversed(chain):
            if _private(attr) and target != module.name:
                yield f"{module.where}:{node.lineno}: {target}.{attr}"
                break
            if f"{target}.{attr}" not in known:
                break
            target = f"{target}.{attr}"


def test_no_private_name_crosses_modules() -> None:
    found = sorted({use for m in modules().values() for use in _private_uses(m)})
    assert not found, "private names used outside their module (make them public or move the code):\n" + "\n".join(
        found
    )


def _defined_privates(module: Module) -> set[str]:
    """Private names this module defines: functions, classes, attributes it assigns
    (``self._x = …``, ``_x = …``, ``__slots__``), parameters."""
    names: set[str] = set()
    for node in ast.walk(module.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)  # __slots__ entries
    return {n for n in names if _private(n)}


def test_no_private_member_of_another_modules_object() -> None:
    """``other._x`` where ``_x`` is private to another module (``self._session._fail()``,
    ``client._run``): the seam between the two is then undeclared."""
    defined = {m.name: _defined_privates(m) for m in modules().values()}
    ours = set().union(*defined.values())  # (a third party's private, os._exit, is not our seam)
    found = []
    for module in modules().values():
        own = defined[module.name]
        others = {  # other libraries' modules (os._exit): not our seams
            alias.asname or alias.name
            for node in ast.walk(module.tree)
            if isinstance(node, ast.Import)
            for alias in node.names
            if alias.name.split(".")[0] != PACKAGE
        }
        for node in ast.walk(module.tree):
            if (
                isinstance(node, ast.Attribute)
                and _private(node.attr)
                and node.attr in ours - own
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls", *others))
            ):
                found.append(f"{module.where}:{node.lineno}: .{node.attr}")
    assert not found, "private members used outside the module that defines them:\n" + "\n".join(sorted(found))
