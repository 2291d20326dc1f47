"""Logins without a person: the client_credentials grant against the demo's authorization
server (``--client-credentials ID``, the secret in DEMO_CLIENT_SECRET), from Python, a
headless notebook (nbclient, as papermill runs one) and the command line; the secret and a
private key in no output. private_key_jwt is checked against the conformance suite
(tests/test_conformance.py: auth/client-credentials-jwt), whose server verifies the JWT."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from joserfc.jwk import ECKey
from support.kernels import run_headless
from support.processes import free_port, running

from mcp_notebook import AuthError, Client, ConfigError
from mcp_notebook.core.auth.tokens import MemoryStore

SECRET = "cc-secret-7Q2xv9Lk"
CLIENT_ID = "nightly-job"


@pytest.fixture(scope="module")
def demo_cc() -> Iterator[str]:
    port = free_port()
    command = [sys.executable, "-m", "mcp_notebook.demo", "--http", str(port), "--oauth",
               "--client-credentials", CLIENT_ID]  # fmt: skip
    with running(command, port, env={"DEMO_CLIENT_SECRET": SECRET}):
        yield f"http://127.0.0.1:{port}/mcp"


def test_a_token_with_nobody_there(demo_cc: str) -> None:
    """pytest's stdin is no terminal: nobody could log in, and nobody is asked."""
    client = Client()
    client.token_store = MemoryStore()
    try:
        oauth = {"grant": "client_credentials", "client_id": CLIENT_ID, "client_secret": SECRET}
        server = client.add("d", url=demo_cc, oauth=oauth)
        assert server.call_tool("query_penguins", {"limit": 1}).structured["count"] == 344
        assert SECRET not in repr(server.config) and SECRET not in repr(client.status())
        with pytest.raises(AuthError) as refused:  # another client id: tokens are kept per client
            client.add("wrong", url=demo_cc, oauth={**oauth, "client_id": "other-job"})
        assert str(refused.value) == (
            "server 'wrong': the client_credentials token request was refused: unknown client or wrong secret"
        )
        with pytest.raises(ConfigError, match=r"client_credentials needs the client's secret or its private key"):
            client.add("none", url=demo_cc, oauth={"grant": "client_credentials", "client_id": "third-job"})
    finally:
        client.close()


def test_a_workload_token_from_a_file_and_what_goes_wrong(demo_cc: str, tmp_path: Path) -> None:
    """jwt_bearer (workload identity) reads the platform's JWT from its file at each request;
    the demo's authorization server does not take that grant: one line naming it, not the
    token. (The conformance suite's auth/wif-jwt-bearer takes it: tests/test_conformance.py.)"""
    token = tmp_path / "token"
    token.write_text("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ3b3JrbG9hZCJ9.c2lnbmF0dXJlLXNlY3JldA\n")
    client = Client()
    client.token_store = MemoryStore()
    try:
        with pytest.raises(AuthError) as refused:
            client.add("w", url=demo_cc, oauth={"grant": "jwt_bearer", "assertion_file": str(token)})
        assert str(refused.value).startswith("server 'w': the jwt_bearer token request was refused: ")
        assert "c2lnbmF0dXJl" not in str(refused.value)
        with pytest.raises(AuthError, match=r"jwt_bearer: cannot read the platform's JWT from .*gone \(No such file"):
            client.add("v", url=demo_cc, oauth={"grant": "jwt_bearer", "assertion_file": str(tmp_path / "gone")})
        with pytest.raises(ConfigError, match=r"id_jag needs the identity provider's token endpoint"):
            client.add("e", url=demo_cc, oauth={"grant": "id_jag", "id_token": "x"})
    finally:
        client.close()


def test_a_headless_notebook_logs_in_and_keeps_no_secret(
    demo_cc: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scheduled notebook: %mcp add with the grant, calls, the history, the transcript,
    the status and debug logging, saved; neither the secret nor a private key is in it."""
    key_pem = ECKey.generate_key("P-256").as_pem(private=True).decode()
    monkeypatch.setenv("NIGHTLY_SECRET", SECRET)
    monkeypatch.setenv("NIGHTLY_KEY", key_pem)
    monkeypatch.setenv("MCP_NOTEBOOK_TOKEN_STORE", "memory")
    cells = [
        "import logging, sys\nlogging.basicConfig(level=logging.DEBUG, stream=sys.stderr)\n%load_ext mcp_notebook",
        f"%mcp add d {demo_cc} --grant client_credentials --client-id {CLIENT_ID} --client-secret-env NIGHTLY_SECRET",
        "r = %mcp call d.query_penguins species=Gentoo limit=2\nr.to_frame()",
        "%mcp status d",
        "%mcp list",
        "%mcp history",
        "%mcp transcript d",
        # The demo's authorization server takes no private_key_jwt: refused, in one line.
        f"%mcp add k {demo_cc} --client-id other-job --private-key-env NIGHTLY_KEY",
    ]
    nb = run_headless(cells, tmp_path, allow_errors=True)
    path = tmp_path / "nightly.ipynb"
    nbformat.write(nb, path)
    outputs = [cell.get("outputs", []) for cell in json.loads(path.read_text())["cells"]]
    text = json.dumps(outputs, ensure_ascii=False)
    assert "✓ d: penguins" in text and "Gentoo" in text
    assert not any(o.get("output_type") == "error" for cell in outputs[:-1] for o in cell), outputs
    refused = [o for o in outputs[-1] if o.get("output_type") == "error"]
    assert refused and refused[0]["evalue"].startswith("server 'k': the client_credentials token request was refused")
    assert "OAuth client_credentials (client secret)" in json.dumps(outputs[3])  # the status says which login
    assert SECRET not in text
    for line in key_pem.splitlines()[1:-1]:
        assert line not in text


def test_the_command_line_in_a_ci_job(demo_cc: str, tmp_path: Path) -> None:
    env = {**os.environ, "API_SECRET": SECRET, "MCP_NOTEBOOK_TOKEN_STORE": "memory"}
    done = subprocess.run(
        [sys.executable, "-m", "mcp_notebook", "--format", "json", "call", "api.summarize_penguins",
         "measure=body_mass_g", "by=species", "--url", demo_cc, "--grant", "client_credentials", "--client-id",
         CLIENT_ID, "--client-secret-env", "API_SECRET"],
        env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert {row["group"] for row in json.loads(done.stdout)["structuredContent"]["result"]} == {
        "Adelie", "Chinstrap", "Gentoo"
    }  # fmt: skip
    assert SECRET not in done.stdout + done.stderr


def test_a_dpop_proof_says_what_it_is_for() -> None:
    """The proof a DPoP request carries (RFC 9449 4.2): the method, the URL without its query,
    the token's hash and, once a server asked for one, its nonce; signed by the key named in
    its header. (The conformance suite's auth/dpop and auth/dpop-nonce check them on the wire.)"""
    import base64
    import hashlib

    from joserfc import jwt
    from joserfc.jwk import ECKey

    from mcp_notebook.core.auth.dpop import DPoP

    dpop = DPoP()
    first = dpop.proof("POST", "https://mcp.example.com/mcp?x=1", "tok")
    header = jwt.decode(first, ECKey.import_key(json.loads(json.dumps(dpop.to_json())))).header
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256" and "d" not in header["jwk"]
    claims = jwt.decode(first, ECKey.import_key(header["jwk"])).claims
    assert claims["htm"] == "POST" and claims["htu"] == "https://mcp.example.com/mcp" and "nonce" not in claims
    assert claims["ath"] == base64.urlsafe_b64encode(hashlib.sha256(b"tok").digest()).rstrip(b"=").decode()
    dpop.remember("https://mcp.example.com/anything", "n-1")
    again = jwt.decode(dpop.proof("GET", "https://mcp.example.com/mcp"), ECKey.import_key(header["jwk"])).claims
    assert again["nonce"] == "n-1" and again["jti"] != claims["jti"] and "ath" not in again
    kept = DPoP.from_json(dpop.to_json())  # the key as the token store keeps it
    assert kept is not None and kept.key.thumbprint() == dpop.key.thumbprint()
    assert repr(dpop) == "<DPoP key ***>"


def test_a_login_that_cannot_work_is_said_when_the_server_is_added(tmp_path: Path) -> None:
    """Not at the first 401 (maybe hours later, in a scheduled run): one line each."""
    url = "https://mcp.example.com/mcp"
    cases = {
        "oauth: 'bogus' is not a grant": {"grant": "bogus"},
        "oauth: unknown setting 'idTokenFile'": {"grant": "id_jag", "idTokenFile": "x"},
        "client_credentials needs the client's secret or its private key": {
            "grant": "client_credentials", "client_id": "c"},
        "a private key (private_key_jwt) needs the client's id": {"private_key_file": "k.pem",
                                                                  "grant": "client_credentials"},
        "id_jag needs the identity provider's token endpoint": {"grant": "id_jag", "id_token": "t"},
        "assertion_file is for the jwt_bearer grant, not client_credentials": {
            "grant": "client_credentials", "client_id": "c", "client_secret": "s", "assertion_file": "f"},
    }  # fmt: skip
    client = Client()
    try:
        for message, oauth in cases.items():
            with pytest.raises(ConfigError, match=re.escape(message)):
                client.add("x", url=url, oauth=oauth)
    finally:
        client.close()


def test_no_platform_token_in_a_repr_or_an_exported_script(tmp_path: Path) -> None:
    from mcp_notebook.core.config.servers import ServerConfig

    token = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJwbGF0Zm9ybSJ9.c2lnbmF0dXJl"
    config = ServerConfig(name="w", transport="http", url="https://mcp.example.com/mcp",
                          oauth={"grant": "jwt_bearer", "assertion": token})  # fmt: skip
    assert token not in repr(config)
    client = Client()
    try:
        client.add_config(config, connect=False)
        path = tmp_path / "replay.py"
        client.export_history(path)
        assert token not in path.read_text()
    finally:
        client.close()


def test_the_demo_answers_odd_credentials_with_a_401(demo_cc: str) -> None:
    import base64

    import httpx

    token_url = demo_cc.removesuffix("/mcp") + "/token"
    for authorization in ("Basic " + base64.b64encode("nightly-job:sécret".encode()).decode(), "Basic !!!"):
        answer = httpx.post(token_url, data={"grant_type": "client_credentials"},
                            headers={"Authorization": authorization}, timeout=30)  # fmt: skip
        assert answer.status_code == 401 and answer.json()["error"] == "invalid_client"
    preflight = httpx.options(demo_cc.removesuffix("/mcp") + "/.well-known/oauth-authorization-server", timeout=30)
    assert preflight.status_code < 500
