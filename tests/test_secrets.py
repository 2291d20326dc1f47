"""Secrets never show in reprs, errors or status rows."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support.peers import faulty_cmd
from support.waiting import wait_for

from mcp_notebook import Client, ServerConfig, StartupError
from mcp_notebook.core.safety.redact import redact_args, redact_mapping

SECRET = "sk-live-0123456789abcdef"


def test_config_repr_hides_env_and_header_values() -> None:
    stdio = ServerConfig(name="s", command="srv", args=["--api-key", SECRET], env={"GITHUB_TOKEN": SECRET})
    remote = ServerConfig(
        name="r", transport="http", url="https://x/mcp", headers={"Authorization": f"Bearer {SECRET}"}
    )
    for text in (repr(stdio), repr(remote), stdio.describe()):
        assert SECRET not in text
    assert "GITHUB_TOKEN" in repr(stdio) and "Authorization" in repr(remote)


@pytest.mark.parametrize(
    "args",
    [["--token", SECRET], [f"--api-key={SECRET}"], [f"PASSWORD={SECRET}"], [f"Bearer {SECRET}"]],
)
def test_secret_arguments_are_redacted(args: list[str]) -> None:
    assert SECRET not in " ".join(redact_args(args))


def test_errors_and_status_do_not_leak_secrets(client: Client) -> None:
    command, args = faulty_cmd("crash-at-start")
    with pytest.raises(StartupError) as info:
        client.add("s", command, [*args, "--token", SECRET], env={"MY_API_KEY": SECRET})
    server = client["s"]
    for text in (str(info.value), repr(info.value), repr(server), repr(server.config), str(client.status())):
        assert SECRET not in text


def test_env_reaches_the_server_but_not_the_repr(client: Client) -> None:
    server = client.add("env", sys.executable, ["-m", "mcp_server_time"], env={"MCP_TEST_TOKEN": SECRET})
    assert SECRET not in repr(server) and SECRET not in repr(client)


def test_secrets_in_a_url_are_hidden() -> None:
    from mcp_notebook import ServerConfig
    from mcp_notebook.core.safety.redact import redact_url

    url = "https://user:hunter2hunter2@example.com/mcp?api_key=k3y-k3y-k3y&region=eu"
    shown = redact_url(url)
    assert "hunter2" not in shown and "k3y" not in shown and "region=eu" in shown and "example.com/mcp" in shown
    config = ServerConfig("remote", url=url, transport="http")
    assert "k3y" not in repr(config) and "k3y" not in config.describe() and "hunter2" not in repr(config)


def test_a_url_secret_stays_out_of_connection_errors() -> None:
    import socket

    from mcp_notebook import Client, MCPError

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = Client()
    try:
        with pytest.raises(MCPError) as info:
            client.add("remote", url=f"http://127.0.0.1:{port}/mcp?token=t0k-t0k-t0k", transport="http")
        assert "t0k" not in str(info.value) and "t0k" not in repr(client["remote"])
        assert "token=***" in str(info.value)
    finally:
        client.close()


# A server that echoes the secrets it was started with to stderr, then dies.
LEAKY = (
    "import os, sys; print('starting with', sys.argv[1:], os.environ.get('MY_API_KEY'), file=sys.stderr); sys.exit(3)"
)


def test_a_server_echoing_its_secrets_to_stderr_shows_them_masked(client: Client) -> None:
    other = "pw-9876543210fedcba"
    with pytest.raises(StartupError) as info:
        client.add("leaky", sys.executable, ["-c", LEAKY, "--token", SECRET], env={"MY_API_KEY": other})
    server = client["leaky"]
    texts = (str(info.value), repr(info.value), repr(server), str(client.status()))
    for text in texts:
        assert SECRET not in text and other not in text
    assert "starting with" in str(info.value) and "***" in str(info.value)  # the line is there, masked


def test_a_saved_notebook_keeps_no_secret_a_server_echoed(tmp_path: Path) -> None:
    """The cell's error (message and traceback) in the .ipynb nbclient saves: its outputs
    (the cell's source holds the secret the person typed)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext mcp_notebook"),
        nbformat.v4.new_code_cell(f'%mcp add leaky -- python -c "{LEAKY}" --token {SECRET}'),
    ]
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    path = tmp_path / "saved.ipynb"
    nbformat.write(nb, path)
    outputs = json.dumps([cell.get("outputs", []) for cell in json.loads(path.read_text())["cells"]])
    assert "starting with" in outputs  # the error is there
    assert SECRET not in outputs


def test_a_secret_across_the_cut_of_a_long_stderr_line_stays_masked(client: Client) -> None:
    """A line with no newline is shown in pieces of at most 2,000 characters: a secret that
    straddles the cut is kept back whole, never shown in part (the first part in one piece,
    the rest in the next). The second half is written only once the first was read."""
    command, args = faulty_cmd("ok")
    server = client.add("s", command, args, env={"MY_API_KEY": SECRET})
    first, rest = "x" * 1995 + SECRET[:10], SECRET[10:] + " y\n"  # the cut falls 5 characters into it

    def parts_shown() -> list[str]:
        shown = server.stderr
        return [SECRET[i : i + 4] for i in range(len(SECRET) - 3) if SECRET[i : i + 4] in shown]

    server.call_tool("stderr", {"text": first})
    assert wait_for(lambda: "x" * 1995 in server.stderr), server.stderr[-100:]
    assert parts_shown() == [], server.stderr[-100:]  # the start of the secret, waiting for its end
    server.call_tool("stderr", {"text": rest})
    assert wait_for(lambda: " y" in server.stderr), server.stderr[-100:]
    assert parts_shown() == [], server.stderr[-100:]
    assert "*** y" in server.stderr  # the secret, masked whole, where it was


def test_a_reference_under_a_secret_name_is_shown_as_written() -> None:
    """A ``${VAR}`` is not the secret but where it comes from: a dry run shows it."""
    args = ["--token", "${MY_TOKEN}", "--api-key=${API_KEY}", "PASSWORD=${DB_PASSWORD}", "--token", SECRET]
    assert redact_args(args) == ["--token", "${MY_TOKEN}", "--api-key=${API_KEY}", "PASSWORD=${DB_PASSWORD}",
                                 "--token", "***"]  # fmt: skip
    env = {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "API_KEY": f"{SECRET}${{X}}"}
    assert redact_mapping(env) == {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "API_KEY": "***"}
