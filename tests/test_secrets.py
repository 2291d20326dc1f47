"""Secrets never show in reprs, errors or status rows."""

from __future__ import annotations

import sys

import pytest
from conftest import faulty_cmd

from mcp_notebook import Client, ServerConfig, StartupError
from mcp_notebook.core.redact import redact_args

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
    from mcp_notebook.core.redact import redact_url

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
