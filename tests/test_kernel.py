"""The quickstart notebook, cell by cell, in a real Jupyter kernel (jupyter_client + ipykernel)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.kernels import Kernel, text_of

pytestmark = pytest.mark.kernel

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "quickstart.ipynb"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    # The notebook says `python -m mcp_notebook.demo`: Kernel puts this interpreter first on PATH.
    k = Kernel(cwd=str(tmp_path_factory.mktemp("kernel")))
    try:
        yield k
    finally:
        k.close()


def test_quickstart_notebook_runs_in_a_kernel(kernel: Kernel) -> None:
    cells = [c for c in json.loads(NOTEBOOK.read_text())["cells"] if c["cell_type"] == "code"]
    results = []
    for cell in cells:
        outputs = kernel.run("".join(cell["source"]))
        errors = [o for o in outputs if o["type"] == "error"]
        assert not errors, f"{''.join(cell['source'])!r} failed: {text_of(errors)}"
        results.append(text_of(outputs))
    joined = "\n".join(results)
    assert "✓ demo: penguins 1.0.0 · protocol 2026-07-28" in joined  # the modern era
    assert "mcp__demo__query_penguins" in joined and "<table" in joined
    assert "penguins://data.csv" in joined
    assert "5076.0" in joined  # mean Gentoo body mass, computed in the notebook from the CSV resource
    assert "Which species is heaviest?" in joined
    assert "connected" in joined


def test_user_errors_are_one_line_in_a_kernel(kernel: Kernel) -> None:
    kernel.run("%load_ext mcp_notebook")
    outputs = kernel.run("%mcp call nowhere.tool x=1")
    # IPython shows a UsageError as one line on stderr, with no traceback.
    assert [o["type"] for o in outputs] == ["stream"] and outputs[0]["name"] == "stderr"
    message = outputs[0]["text"].strip()
    assert message.startswith("UsageError: no server named 'nowhere'") and "\n" not in message


def test_server_errors_are_one_line_in_a_kernel(kernel: Kernel) -> None:
    kernel.run("%load_ext mcp_notebook")
    kernel.run("%mcp add demo -- python -m mcp_notebook.demo")
    outputs = kernel.run("%mcp read demo penguins://nope")
    errors = [o for o in outputs if o["type"] == "error"]
    assert len(errors) == 1 and errors[0]["ename"] == "RPCError"
    # penguins://nope may not be a link (not https:): shown broken (core/safety/links.py unlinked)
    assert len(errors[0]["traceback"]) == 1 and "Unknown resource: penguins[:]//nope" in errors[0]["traceback"][0]


def test_results_show_themselves_without_load_ext(tmp_path: Path) -> None:
    # A kernel of its own: the module's kernel has the extension loaded.
    k = Kernel(cwd=str(tmp_path))
    try:
        setup = k.run(
            "import sys\nfrom mcp_notebook import get_client\n"
            "demo = get_client().add('demo', sys.executable, ['-m', 'mcp_notebook.demo'])"
        )
        assert not [o for o in setup if o["type"] == "error"], text_of(setup)
        shown = {}
        for name, code in {
            "call": "demo.call_tool('query_penguins', {'species': 'Gentoo', 'limit': 2})",
            "read": "demo.read_resource('penguins://data.csv')",
            "prompt": "demo.get_prompt('explore', {'question': 'which is heaviest?'})",
        }.items():
            results = [o for o in k.run(code) if o["type"] == "execute_result"]
            assert len(results) == 1, f"{name}: {results}"
            shown[name] = results[0]["data"]
        assert "<table" in shown["call"]["text/html"] and "Gentoo" in shown["call"]["text/html"]
        assert shown["call"]["text/plain"].startswith("{")  # the records, not <CallResult …>
        assert "<table" in shown["read"]["text/html"] and "344 rows" in shown["read"]["text/html"]
        assert "<b>user</b>" in shown["prompt"]["text/html"] and "which is heaviest?" in shown["prompt"]["text/plain"]
        magics = k.run("print('mcp' in get_ipython().magics_manager.magics['line'])")
        assert text_of(magics).strip() == "False"  # the extension was never loaded
    finally:
        k.close()
