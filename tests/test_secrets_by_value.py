"""Secrets found by their value (core/safety/detect.py), not only by their key's name: a
config copied from Claude Desktop with a password in a postgres URL, a bearer token inside a
JSON env value, ``OPENAI_KEY``, ``GITHUB_PAT``, ``DATABASE_URL``, a key in a URL's path or
query and an ``Ocp-Apim-Subscription-Key`` header. ``load --from claude-desktop --save
project`` writes ``${VAR}`` references and one line per secret naming its variable;
the dry-run table, reprs and everything printed mask them; a ``${VAR}`` the file holds is
shown as written, never expanded. Through the magic and the real ``mcp-notebook`` command.
And an authorization server that echoes the token request: the client secret is masked in
the error, the log, the status and the saved notebook."""

from __future__ import annotations

import base64
import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import nbformat
import pandas as pd
import pytest
from support.cli import cli
from support.kernels import run_headless
from support.peers import ROOT, SERVERS
from support.processes import free_port, running
from support.shells import extension_loaded, line, run

from mcp_notebook import AuthError, Client, MCPError
from mcp_notebook.core.auth.tokens import MemoryStore
from mcp_notebook.core.config.clients import read_client
from mcp_notebook.core.config.entries import config_entry
from mcp_notebook.core.config.servers import ServerConfig, parse_config
from mcp_notebook.core.safety.detect import is_secret_setting, mask_secrets
from mcp_notebook.core.safety.redact import redact_args, redact_mapping, redact_url
from mcp_notebook.runtime.client import get_client

# Shaped as the real ones are (fakes: no issuer ever made them).
PG_PASSWORD = "pgPw-4kq9Zr2x"
BEARER = "bearer-71fq0Zx93kLm"
OPENAI = "sk-proj-" + "Qw3rTy7uIoP4aSdF9gHjK2lZ"
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
DATABASE = "dbPw-Hx8s2Lq0"
PATH_KEY = "k9Xq2Lm7Rt4Vz8Nw3Bp6Yc1Hd5"
QUERY_KEY = "qk-5Tz8Wm2Rx"
FUNCTION_CODE = "fnCode-Zx9aQ2w8Lp"
SUBSCRIPTION = "0a1b2c3d4e5f67890a1b2c3d"
SLACK = "xoxb-" + "1234567890-abcdefghijkl"
REFERENCED = "ref-0d2f7c1a-kept-in-env"  # DOCS_TOKEN's value: the file refers to it
SECRETS = [PG_PASSWORD, BEARER, OPENAI, GITHUB, DATABASE, PATH_KEY, QUERY_KEY, FUNCTION_CODE, SUBSCRIPTION, SLACK,
           REFERENCED]  # fmt: skip

DESKTOP = {
    "mcpServers": {
        "postgres": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-postgres",
                     f"postgresql://app:{PG_PASSWORD}@db.example:5432/prod"],
        },
        "assistant": {
            "command": "uvx",
            "args": ["assistant-mcp"],
            "env": {
                "OPENAI_KEY": OPENAI,
                "GITHUB_PAT": GITHUB,
                "DATABASE_URL": f"postgres://reader:{DATABASE}@db.example/app",
                "SETTINGS": json.dumps({"headers": {"Authorization": f"Bearer {BEARER}"}, "region": "eu"}),
                "NOTIFY": SLACK,
                "LOG_LEVEL": "debug",
            },
        },
        "azure": {
            "command": "npx",
            "args": ["mcp-remote", f"https://fn.example.net/api/mcp?code={FUNCTION_CODE}&format=json",
                     "--header", f"Ocp-Apim-Subscription-Key: {SUBSCRIPTION}"],
        },
        "keyed": {
            "command": "npx",
            "args": ["mcp-remote", f"https://mcp.example.com/s/{PATH_KEY}/sse?key={QUERY_KEY}"],
        },
        "referenced": {
            "command": "npx",
            "args": ["mcp-remote", "https://docs.example/mcp", "--header", "Authorization: Bearer ${DOCS_TOKEN}"],
        },
    }
}  # fmt: skip


@pytest.fixture
def desktop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A home holding Claude Desktop's config (Linux layout, as tests/test_clients.py lays
    it out), a project folder as the current one, our user scope of its own; the
    environment for a run of the command line there."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    config = home / ".config/Claude/claude_desktop_config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps(DESKTOP, indent=2))
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "DOCS_TOKEN": REFERENCED,
           "MCP_NOTEBOOK_CONFIG_DIR": str(tmp_path / "ours"), "MCP_NOTEBOOK_TOKEN_STORE": "file"}  # fmt: skip
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in ("OPENAI_KEY", "GITHUB_PAT", "DATABASE_URL", "APPDATA", "CODEX_HOME", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(project)
    return env


def leaked(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def check_saved(project: Path, notes: list[str]) -> None:
    """The project's .mcp.json holds references, not secrets; one note per secret names the
    variable to set; with those set, the file reads back as the original."""
    text = (project / ".mcp.json").read_text()
    assert not leaked(text), leaked(text)
    servers = json.loads(text)["mcpServers"]
    assert servers["assistant"]["env"]["OPENAI_KEY"] == "${OPENAI_KEY}"
    assert servers["assistant"]["env"]["GITHUB_PAT"] == "${GITHUB_PAT}"
    assert servers["assistant"]["env"]["DATABASE_URL"] == "${DATABASE_URL}"
    assert servers["assistant"]["env"]["LOG_LEVEL"] == "debug"
    assert "Bearer ${ASSISTANT_TOKEN}" in servers["assistant"]["env"]["SETTINGS"]
    assert servers["postgres"]["args"][2] == "postgresql://app:${POSTGRES_PASSWORD}@db.example:5432/prod"
    assert servers["keyed"]["args"][1] == "https://mcp.example.com/s/${KEYED_PATH_KEY}/sse?key=${KEYED_KEY}"
    assert servers["azure"]["args"][1:] == [
        "https://fn.example.net/api/mcp?code=${AZURE_CODE}&format=json",
        "--header",
        "Ocp-Apim-Subscription-Key: ${AZURE_OCP_APIM_SUBSCRIPTION_KEY}",
    ]
    assert servers["referenced"]["args"][3] == "Authorization: Bearer ${DOCS_TOKEN}"  # as the file has it
    variables = {"OPENAI_KEY": OPENAI, "GITHUB_PAT": GITHUB, "DATABASE_URL": f"postgres://reader:{DATABASE}@db.example/app",
                 "ASSISTANT_TOKEN": BEARER, "ASSISTANT_SLACK_TOKEN": SLACK, "POSTGRES_PASSWORD": PG_PASSWORD,
                 "KEYED_PATH_KEY": PATH_KEY, "KEYED_KEY": QUERY_KEY, "AZURE_CODE": FUNCTION_CODE,
                 "AZURE_OCP_APIM_SUBSCRIPTION_KEY": SUBSCRIPTION}  # fmt: skip
    asked = [n for n in notes if n.startswith("note: set ")]
    assert sorted(re.findall(r"^note: set (\w+) ", "\n".join(asked), re.M)) == sorted(variables), asked
    assert len(asked) == len(variables)  # one line per secret
    again = parse_config(json.loads(text), source="saved", environ={**variables, "DOCS_TOKEN": REFERENCED})
    for name, entry in DESKTOP["mcpServers"].items():
        assert again[name].args == [a.replace("${DOCS_TOKEN}", REFERENCED) for a in entry["args"]], name
        assert again[name].env == entry.get("env", {}), name


def test_load_from_claude_desktop_saves_references_and_shows_no_secret(
    desktop: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    found = {one.config.name: one for one in read_client("claude-desktop")}
    assert found["assistant"].config.env["OPENAI_KEY"] == OPENAI  # read whole: the server needs it
    assert not leaked("\n".join(repr(one.config) + one.config.describe() for one in found.values()))
    with extension_loaded() as ip:
        table = line(ip, "load --from claude-desktop --dry-run")
        assert isinstance(table, pd.DataFrame) and not leaked(table.to_string())
        target = dict(zip(table["name"], table["target"], strict=True))
        assert target["referenced"].endswith("--header 'Authorization: Bearer ${DOCS_TOKEN}'"), target
        assert "postgresql://app:***@db.example" in target["postgres"]
        assert line(ip, "list").empty  # a dry run: nothing started
        run(ip, "%mcp load --from claude-desktop --dry-run --save project")
    out = capsys.readouterr()
    assert not leaked(out.out + out.err), leaked(out.out + out.err)
    check_saved(Path.cwd(), out.out.splitlines())


def test_the_command_line_saves_references_and_prints_no_secret(desktop: dict[str, str]) -> None:
    project = Path.cwd()
    shown, said = cli("load", "--from", "claude-desktop", "--dry-run", cwd=project, env=desktop)
    assert not leaked(shown + said) and "Bearer ${DOCS_TOKEN}" in shown, shown
    out, err = cli("load", "--from", "claude-desktop", "--dry-run", "--save", "project", cwd=project, env=desktop)
    assert not leaked(out + err), leaked(out + err)
    check_saved(project, (out + err).splitlines())
    listed, said = cli("--format", "json", "load", "--from", "claude-desktop", "--dry-run", cwd=project, env=desktop)
    assert not leaked(listed + said)


# A server that prints what it was started with, then dies: its error quotes its stderr.
LEAKY = "import os, sys; print('started with', sys.argv[1:], os.environ.get('SETTINGS'), file=sys.stderr); sys.exit(3)"


def test_load_from_claude_desktop_connects_and_saves_showing_no_secret(
    desktop: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --dry-run: each server started (one ✓ or ✗ line), saved, and status shown."""
    settings = json.dumps({"headers": {"Authorization": f"Bearer {BEARER}"}})
    servers = {
        "penguins": {
            "command": sys.executable,
            "args": ["-m", "mcp_notebook.demo"],
            "env": {"OPENAI_KEY": OPENAI, "DATABASE_URL": f"postgres://r:{DATABASE}@db/x", "SETTINGS": settings},
        },
        "leaky": {
            "command": sys.executable,
            "args": ["-c", LEAKY, f"postgresql://app:{PG_PASSWORD}@db:5432/prod", GITHUB],
            "env": {"SETTINGS": settings},
        },
    }
    (Path(desktop["HOME"]) / ".config/Claude/claude_desktop_config.json").write_text(
        json.dumps({"mcpServers": servers})
    )
    with extension_loaded() as ip:
        try:
            run(ip, "%mcp load --from claude-desktop --save project")
            status = [line(ip, f"status {name}") for name in ("penguins", "leaky")]
        finally:  # the kernel-wide client outlives this test: the servers go with it
            for name in {"penguins", "leaky"} & set(get_client().servers):
                get_client().remove(name)
    out = capsys.readouterr()
    printed = out.out + out.err + str(status)
    assert "✓ penguins" in printed and "✗ leaky" in printed and "started with" in printed, printed
    assert not leaked(printed), leaked(printed)
    saved = (Path.cwd() / ".mcp.json").read_text()
    assert not leaked(saved) and "${LEAKY_GITHUB_TOKEN}" in saved and ":${LEAKY_PASSWORD}@db" in saved


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("postgresql://app:pw-9Zx@db:5432/x", "postgresql://app:***@db:5432/x"),
        ('{"Authorization": "Bearer abcdef123456"}', '{"Authorization": "Bearer ***"}'),
        ('{"api_key": "k-12345"}', '{"api_key": "***"}'),
        ("https://h.example/mcp?code=abc123&page=2", "https://h.example/mcp?code=***&page=2"),
        ("Ocp-Apim-Subscription-Key: 0a1b2c3d", "Ocp-Apim-Subscription-Key: ***"),
        ("--header=X-Api-Key:0a1b2c3d", "--header=X-Api-Key:***"),
        ("Server=db;User ID=u;Password=hunter22;", "Server=db;User ID=u;Password=***;"),
        (GITHUB, "***"),
        ("github_pat_11ABCDEFG0abcdefghijkl_mnopqrstu", "***"),
        (OPENAI, "***"),
        (SLACK, "***"),
        ("id AKIAIOSFODNN7EXAMPLE here", "id *** here"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "***"),
        (f"https://mcp.example.com/s/{PATH_KEY}/sse", "https://mcp.example.com/s/***/sse"),
        # Ordinary words, names, versions and references stay as they are.
        ("the keyboard monkey", None),
        ("@modelcontextprotocol/server-filesystem", None),
        ("https://github.com/modelcontextprotocol/server-everything-2025", None),
        ("https://example.com/a/b?page=2&sort=desc", None),
        ("ssh://git@github.com/x", None),
        ("sk-learn", None),
        ("Bearer ${DOCS_TOKEN}", None),
        ("https://r.example/${DOCS_TOKEN}/mcp?key=${KEY}", None),
        ("-m mcp_notebook.demo --port 8080", None),
        ("the access token provided has expired; Basic authentication failed", None),
        ("https://github.com/o/r/commit/3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39", None),  # a digest, not a key
        (f"repo://o/r/sha/{PATH_KEY}/contents/x.py", None),  # a resource's URI names content
        (f"repo://o/r/token/{PATH_KEY}", "repo://o/r/token/***"),
    ],
)
def test_secrets_are_found_by_their_value(text: str, masked: str | None) -> None:
    assert mask_secrets(text) == (text if masked is None else masked)


def test_names_that_hold_secrets_and_names_that_do_not() -> None:
    secret = ["OPENAI_KEY", "GITHUB_PAT", "DATABASE_URL", "MONGO_URI", "CONNECTION_STRING", "Ocp-Apim-Subscription-Key",
              "X-Api-Key", "openaiApiKey", "DB_PWD", "API_TOKEN"]  # fmt: skip
    plain = ["HOME", "PATH", "LOG_LEVEL", "KEYBOARD", "KEY_FILE", "SSH_KEY_PATH", "DB_HOST", "MONKEY", "TURKEY_URL",
             "SORT_KEY", "PUBLIC_KEY", "--primary-key", "REDIS_KEY_PREFIX", "SIGNATURE_ALGORITHM", "PASS_THROUGH",
             "PARTITION_KEY", "foreignKey", "MAX_KEY_LENGTH", "KEY_SIZE", "CACHE_KEY_COUNT"]  # fmt: skip
    assert [n for n in secret if not is_secret_setting(n)] == []
    assert [n for n in plain if is_secret_setting(n)] == []
    # An option named so keeps its value: `--primary-key id` is saved as written.
    entry, variables = config_entry(ServerConfig("db", command="db-mcp", args=["--primary-key", "id", "--sort-key=ts"]))
    assert entry["args"] == ["--primary-key", "id", "--sort-key=ts"] and variables == []


def test_reprs_tables_and_urls_mask_by_value() -> None:
    args = [
        "mcp-remote",
        f"https://x.example/mcp?key={QUERY_KEY}",
        "--header",
        f"Ocp-Apim-Subscription-Key: {SUBSCRIPTION}",
    ]
    assert not leaked(" ".join(redact_args(args)))
    env: dict[str, Any] = {"OPENAI_KEY": OPENAI, "SETTINGS": json.dumps({"token": BEARER}), "LEVEL": "debug"}
    assert not leaked(repr(redact_mapping(env))) and redact_mapping(env)["LEVEL"] == "debug"
    assert (
        redact_url(f"https://x.example/s/{PATH_KEY}/mcp?code={FUNCTION_CODE}", paths=True)
        == "https://x.example/s/***/mcp?code=***"
    )


# -- an authorization server that echoes the request in its error ---------------------------

CLIENT_SECRET = "cs-9Qz/x+Lk=7wR2"  # characters a form encodes: the echo holds it encoded


@pytest.fixture(scope="module", params=["basic", "post"])
def echoing(request: pytest.FixtureRequest) -> Iterator[str]:
    """tests/servers/echoing_auth.py: its token endpoint quotes the request (the form, the
    Authorization header and what it decodes to) in its error; the client authenticates
    with client_secret_basic or client_secret_post."""
    port = free_port()
    with running([sys.executable, str(SERVERS / "echoing_auth.py"), str(port), request.param], port):
        yield f"http://127.0.0.1:{port}/mcp"


def secret_forms() -> list[str]:
    """The client secret as it may come back: as it is, form-encoded, in a Basic header."""
    basic = base64.b64encode(f"job:{CLIENT_SECRET}".encode()).decode()
    return [CLIENT_SECRET, quote_plus(CLIENT_SECRET), quote(CLIENT_SECRET, safe=""), basic]


def test_an_echoed_client_secret_is_masked_in_the_error_log_and_status(
    echoing: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    client = Client()
    client.token_store = MemoryStore()
    try:
        oauth = {"grant": "client_credentials", "client_id": "job", "client_secret": CLIENT_SECRET}
        with pytest.raises(AuthError) as refused:
            client.add("echo", url=echoing, oauth=oauth)
        error = str(refused.value)
        assert "cannot parse the request" in error and "***" in error, error  # the answer is there, masked
        logged = "\n".join(logging.Formatter("%(name)s %(message)s").format(r) for r in caplog.records)
        shown = [error, repr(refused.value), logged, str(client.status()), repr(client["echo"])]
        assert not [(form, text) for form in secret_forms() for text in shown if form in text]
    finally:
        client.close()


def test_a_saved_notebook_keeps_no_echoed_client_secret(
    echoing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ECHO_SECRET", CLIENT_SECRET)
    monkeypatch.setenv("MCP_NOTEBOOK_TOKEN_STORE", "memory")
    cells = [
        "import logging, sys\nlogging.basicConfig(level=logging.INFO, stream=sys.stderr)\n%load_ext mcp_notebook",
        f"%mcp add echo {echoing} --grant client_credentials --client-id job --client-secret-env ECHO_SECRET",
        "%mcp status",
    ]
    nb = run_headless(cells, tmp_path, allow_errors=True)
    path = tmp_path / "saved.ipynb"
    nbformat.write(nb, path)
    text = json.dumps([cell.get("outputs", []) for cell in json.loads(path.read_text())["cells"]])
    assert "cannot parse the request" in text  # the error is there
    assert not [form for form in secret_forms() if form in text]


def test_an_mcp_endpoint_echoing_the_headers_it_got_shows_none_of_their_secrets(echoing: str) -> None:
    """Any configured secret's value is masked where a server's answer is quoted: here a
    header's value in an HTTP error's body."""
    token, key = "tok-4Hn8Qz2Wx7", "hk-6Lp3Vb9Ty1"
    client = Client()
    try:
        with pytest.raises(MCPError) as refused:
            client.add("h", url=echoing.replace("/mcp", "/echo/mcp"), transport="http",
                       headers={"Authorization": f"Bearer {token}", "X-Api-Key": key})  # fmt: skip
        error = str(refused.value)
        assert "cannot parse the request" in error, error
        shown = [error, repr(refused.value), str(client.status()), repr(client["h"])]
        assert not [text for text in shown if token in text or key in text], error
    finally:
        client.close()


# -- an exported script or test reads config secrets from the environment ------------------

JWT = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiJhZGEifQ.c2lnbmVkLWJ5LWFkYQ"
# The demo server, started so that it ignores the arguments after it (they hold secrets).
DEMO = "import sys; from mcp_notebook.demo.__main__ import main; sys.exit(main([]))"


def test_an_exported_script_and_test_read_secrets_found_by_value_from_the_environment(tmp_path: Path) -> None:
    """``%mcp history --export`` (script and ``--pytest``) of a server whose env and
    arguments hold secrets that only their values give away: none is written; the exported
    test, with the variables it names set, passes."""
    env = {"OPENAI_KEY": OPENAI, "GITHUB_PAT": GITHUB, "DATABASE_URL": f"postgres://reader:{DATABASE}@db.example/app",
           "SETTINGS": json.dumps({"headers": {"Authorization": f"Bearer {JWT}"}, "region": "eu"}),
           "LOG_LEVEL": "debug"}  # fmt: skip
    args = ["-c", DEMO, f"postgresql://app:{PG_PASSWORD}@db.example:5432/prod", GITHUB, "--primary-key", "id"]
    script, exported = tmp_path / "replay.py", tmp_path / "test_replay.py"
    with extension_loaded() as ip:
        get_client().add("keyed", sys.executable, args, env=env)
        try:
            run(ip, "%mcp call keyed.query_penguins species=Gentoo limit=1")
            run(ip, f"%mcp history keyed --export {script}")
            run(ip, f"%mcp history keyed --export {exported} --pytest --exact")
        finally:
            get_client().remove("keyed")
    for path in (script, exported):
        text = path.read_text()
        assert not leaked(text) and JWT not in text, (path.name, leaked(text))
        assert "'--primary-key', 'id'" in text and "'LOG_LEVEL': 'debug'" in text and '"region": "eu"}' in text
    text = exported.read_text()
    names = re.findall(r"^#   (MCP_\w+): ", text, re.M)
    values = {"MCP_KEYED_OPENAI_KEY": OPENAI, "MCP_KEYED_GITHUB_PAT": GITHUB,
              "MCP_KEYED_DATABASE_URL": env["DATABASE_URL"], "MCP_KEYED_TOKEN": JWT,
              "MCP_KEYED_PASSWORD": PG_PASSWORD, "MCP_KEYED_GITHUB_TOKEN": GITHUB}  # fmt: skip
    assert sorted(names) == sorted(values), names
    # The script, as Python, rebuilds the config it was recorded with.
    assert "os.environ['MCP_KEYED_PASSWORD']" in script.read_text()
    run_env = {**os.environ, "PYTHONPATH": str(ROOT), **values}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", str(exported)]
    done = subprocess.run(command, cwd=tmp_path, env=run_env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]


# -- value detection leaves ordinary addresses alone -----------------------------------------

ORDINARY_URIS = [
    "https://drive.google.com/file/d/1aB3cD5eF7gH9iJ1kL3mN5oP7qR9sT1u/view",
    "https://example.com/Download/MyReport2024FinalVersionV3.pdf",
    "https://api.example.com/api/v1/users/u7Hq2Lm9Xz4Rt8Wb3Np6Yc1",
    "https://app.example.com/oauth/callback?state=ab12",
    "https://blog.example.com/author/x7Yq2Lm9Kz4Rt8Wb3Np6",
]


def test_resource_uris_show_as_they_are_while_a_configured_url_hides_its_path_key(client: Client) -> None:
    """A resource's URI is data: history rows and the transcript show it whole (only a
    password or a secret query value is hidden there). A server URL someone configured
    hides a key in its path."""
    demo = client.add("uris", sys.executable, ["-m", "mcp_notebook.demo"])
    for uri in ORDINARY_URIS:
        with pytest.raises(MCPError):
            demo.read_resource(uri)  # the demo has none of them: the call is recorded all the same
    names = list(client.history()["name"])
    assert [u for u in ORDINARY_URIS if u not in names] == [], names
    summaries = "\n".join(client.transcript("uris")["summary"])
    assert [u for u in ORDINARY_URIS if f"resources/read {u}" not in summaries] == [], summaries
    assert redact_url("https://h.example/x?api_key=ak-1234567&p=1") == "https://h.example/x?api_key=***&p=1"
    configured = parse_config({"mcpServers": {"k": {"url": f"https://mcp.example.com/key/{PATH_KEY}/mcp"}}})["k"]
    assert PATH_KEY not in configured.describe() + repr(configured), configured.describe()
    assert (
        redact_url(f"https://mcp.example.com/key/{PATH_KEY}/mcp", paths=True) == "https://mcp.example.com/key/***/mcp"
    )
    # Whole words only before a key: "oauth" and "author" are not "auth".
    for url in ("https://app.example.com/oauth/callback", "https://blog.example.com/author/ada-lovelace"):
        assert redact_url(url, paths=True) == url


def test_a_dry_run_shows_a_command_from_a_variable_as_written(
    desktop: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``${VAR}`` in an entry's command is shown as the reference, never its value, and
    saved so."""
    tools = "/opt/tools-4Hq8Zx"  # where the variable points here: not for the table
    monkeypatch.setenv("TOOLS_HOME", tools)
    servers = {"tool": {"command": "${TOOLS_HOME}/bin/server", "args": ["--stdio"]}}
    (Path(desktop["HOME"]) / ".config/Claude/claude_desktop_config.json").write_text(
        json.dumps({"mcpServers": servers})
    )
    found = {one.config.name: one for one in read_client("claude-desktop")}
    assert found["tool"].config.command == f"{tools}/bin/server"  # started with the value
    target = found["tool"].target()
    assert "${TOOLS_HOME}/bin/server" in target and tools not in target, target
    shown, said = cli(
        "load", "--from", "claude-desktop", "--dry-run", cwd=Path.cwd(), env={**desktop, "TOOLS_HOME": tools}
    )
    assert tools not in shown + said and "${TOOLS_HOME}/bin/server" in shown, shown
    cli("load", "--from", "claude-desktop", "--dry-run", "--save", "project", cwd=Path.cwd(),
        env={**desktop, "TOOLS_HOME": tools})  # fmt: skip
    saved = json.loads((Path.cwd() / ".mcp.json").read_text())["mcpServers"]["tool"]
    assert saved["command"] == "${TOOLS_HOME}/bin/server", saved


# -- names that say where a secret is, or what kind; values no secret has; long inputs ------


def test_names_that_say_where_or_what_kind_a_secret_is_hold_none() -> None:
    plain = ["TOKEN_FILE", "PASSWORD_FILE", "AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "AUTH_TYPE", "MAX_TOKENS", "maxTokens",
             "AUTHORITY", "token_type", "SECRET_NAME", "COOKIE_PATH", "TOKEN_LIMIT", "PASSWORD_MIN_LENGTH"]  # fmt: skip
    secret = ["TOKEN", "AUTH", "session_id", "SESSION_ID", "sessionId", "client_secret", "VAULT_SECRET_ID",
              "Authorization", "Proxy-Authorization", "AUTH_HEADER", "PASSWORD_HASH", "ACCESS_TOKEN_2", "OAUTH_TOKEN",
              "GOOGLE_APPLICATION_CREDENTIALS", "Cookie"]  # fmt: skip
    assert [n for n in plain if is_secret_setting(n)] == []
    assert [n for n in secret if not is_secret_setting(n)] == []


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("author: Jane Doe", None),
        ("max_tokens=1000", None),
        ('{"auth": true, "token_type": "Bearer"}', None),
        ("pin=4242 password=123456", "pin=4242 password=***"),  # a number under a secret's name is masked
        ("auth: s3cr3t-Value", "auth: ***"),
        ("password=hunter22&max_tokens=1000", "password=***&max_tokens=1000"),
    ],
)
def test_a_switch_or_a_count_is_no_secret_and_an_author_is_a_person(text: str, masked: str | None) -> None:
    assert mask_secrets(text) == (text if masked is None else masked)


def test_the_command_line_shows_references_and_saves_plain_names_as_they_are(desktop: dict[str, str]) -> None:
    """``--token ${MY_TOKEN}`` shows as written in a dry run; ``AUTHOR_NAME`` is no secret:
    saved as it is, not as ``${AUTHOR_NAME}``."""
    servers = {"notes": {"command": "notes-mcp", "args": ["--token", "${MY_TOKEN}", f"--api-key={OPENAI}"],
                         "env": {"AUTHOR_NAME": "Jane Doe", "MAX_TOKENS": "1000", "TOKEN_FILE": "/run/t"}}}  # fmt: skip
    (Path(desktop["HOME"]) / ".config/Claude/claude_desktop_config.json").write_text(
        json.dumps({"mcpServers": servers})
    )
    env = {**desktop, "MY_TOKEN": "tok-7Rq2Zx9Lm4"}
    shown, said = cli("load", "--from", "claude-desktop", "--dry-run", cwd=Path.cwd(), env=env)
    assert "--token '${MY_TOKEN}'" in shown and OPENAI not in shown + said and "tok-7Rq2Zx9Lm4" not in shown + said
    cli("load", "--from", "claude-desktop", "--dry-run", "--save", "project", cwd=Path.cwd(), env=env)
    saved = json.loads((Path.cwd() / ".mcp.json").read_text())["mcpServers"]["notes"]
    assert saved["env"] == servers["notes"]["env"], saved
    assert saved["args"][:2] == ["--token", "${MY_TOKEN}"] and OPENAI not in json.dumps(saved), saved


def test_long_runs_that_start_like_a_jwt_are_scanned_in_one_pass() -> None:
    """A megabyte of ``eyJ-`` (each a JWT's start that never comes to its dot): found to be
    no token in one pass (the per-test timeout catches a pass from each start)."""
    run = "eyJ-" * 250_000
    assert mask_secrets(f"{run} {JWT} done") == f"{run} *** done"


def test_many_secrets_in_a_long_text_are_all_replaced() -> None:
    """200,000 secrets in 3.6 MB of text: each replaced, the text built once (the per-test
    timeout catches a rebuild per secret)."""
    text = " ".join(f"TOKEN=v{i:07d}x" for i in range(200_000))
    masked = mask_secrets(text)
    assert masked == " ".join(["TOKEN=***"] * 200_000)


def test_a_huge_error_page_is_cut_before_it_is_masked(echoing: str) -> None:
    """tests/servers/echoing_auth.py's /flood/mcp quotes the request's headers, then a
    megabyte that is slow to scan whole: the error shows its start, masked, at once."""
    key = "hk-6Lp3Vb9Ty1"
    client = Client()
    try:
        with pytest.raises(MCPError) as refused:
            client.add("f", url=echoing.replace("/mcp", "/flood/mcp"), transport="http", headers={"X-Api-Key": key})
        error = str(refused.value)
        assert "answered HTTP 500" in error and "cannot parse the request" in error, error
        assert key not in error and len(error) < 1000, error
    finally:
        client.close()
