"""The quickstart notebook, cell by cell, in a real Jupyter kernel (jupyter_client + ipykernel)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from queue import Empty
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "quickstart.ipynb"
TIMEOUT = 60


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    # The notebook says `python -m mcp_notebook.demo`: this interpreter must be `python`.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    km, kc = start_new_kernel(kernel_name="python3", env=env, cwd=str(tmp_path_factory.mktemp("kernel")))
    try:
        yield kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def execute(kc: Any, code: str) -> list[dict[str, Any]]:
    """Run code; return its iopub outputs (stream, display_data, execute_result, error)."""
    msg_id = kc.execute(code)
    outputs = []
    while True:
        try:
            msg = kc.get_iopub_msg(timeout=TIMEOUT)
        except Empty:
            pytest.fail(f"no answer from the kernel within {TIMEOUT} s for {code!r}")
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "status" and msg["content"]["execution_state"] == "idle":
            return outputs
        if kind in ("stream", "display_data", "execute_result", "error"):
            outputs.append({"type": kind, **msg["content"]})


def text_of(outputs: list[dict[str, Any]]) -> str:
    parts = []
    for out in outputs:
        if out["type"] == "stream":
            parts.append(out["text"])
        elif out["type"] in ("display_data", "execute_result"):
            parts.append(out["data"].get("text/html", "") + out["data"].get("text/plain", ""))
        elif out["type"] == "error":
            parts.append(f"{out['ename']}: {out['evalue']}")
    return "\n".join(parts)


def test_quickstart_notebook_runs_in_a_kernel(kernel: Any) -> None:
    cells = [c for c in json.loads(NOTEBOOK.read_text())["cells"] if c["cell_type"] == "code"]
    results = []
    for cell in cells:
        outputs = execute(kernel, "".join(cell["source"]))
        errors = [o for o in outputs if o["type"] == "error"]
        assert not errors, f"{''.join(cell['source'])!r} failed: {text_of(errors)}"
        results.append(text_of(outputs))
    joined = "\n".join(results)
    assert "✓ demo: penguins 1.0.0" in joined
    assert "mcp__demo__query_penguins" in joined and "<table" in joined
    assert "penguins://data.csv" in joined
    assert "5076.0" in joined  # mean Gentoo body mass, computed in the notebook from the CSV resource
    assert "Which species is heaviest?" in joined
    assert "connected" in joined


def test_user_errors_are_one_line_in_a_kernel(kernel: Any) -> None:
    execute(kernel, "%load_ext mcp_notebook")
    outputs = execute(kernel, "%mcp call nowhere.tool x=1")
    # IPython shows a UsageError as one line on stderr, with no traceback.
    assert [o["type"] for o in outputs] == ["stream"] and outputs[0]["name"] == "stderr"
    message = outputs[0]["text"].strip()
    assert message.startswith("UsageError: no server named 'nowhere'") and "\n" not in message


def test_server_errors_are_one_line_in_a_kernel(kernel: Any) -> None:
    execute(kernel, "%load_ext mcp_notebook")
    execute(kernel, "%mcp add demo -- python -m mcp_notebook.demo")
    outputs = execute(kernel, "%mcp prompt demo.no_such_prompt")
    errors = [o for o in outputs if o["type"] == "error"]
    assert len(errors) == 1 and errors[0]["ename"] == "RPCError"
    assert len(errors[0]["traceback"]) == 1 and "no_such_prompt" in errors[0]["traceback"][0]
