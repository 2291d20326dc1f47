"""Config files: Claude Code's .mcp.json and VS Code's mcp.json, with ${VAR} expansion."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import faulty_cmd

from mcp_notebook import Client, ConfigError, Status, load_config
from mcp_notebook.core.config import parse_config


def test_claude_code_format_with_variables() -> None:
    data = {
        "mcpServers": {
            "local": {
                "command": "${TOOLS_DIR}/server",
                "args": ["--port", "${PORT:-8080}", "--name=${NAME:-}"],
                "env": {"API_KEY": "${SECRET_KEY}"},
            },
            "remote": {"type": "http", "url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
        }
    }
    env = {"TOOLS_DIR": "/opt/tools", "SECRET_KEY": "s3cr3t", "HOST": "example.com", "TOKEN": "tok"}
    configs = parse_config(data, environ=env)
    local, remote = configs["local"], configs["remote"]
    assert local.transport == "stdio" and local.command == "/opt/tools/server"
    assert local.args == ["--port", "8080", "--name="]
    assert local.env == {"API_KEY": "s3cr3t"}
    assert remote.transport == "http" and remote.url == "https://example.com/mcp"
    assert remote.headers == {"Authorization": "Bearer tok"}


def test_vscode_format_with_comments_and_trailing_commas(tmp_path: Path) -> None:
    folder = tmp_path / ".vscode"
    folder.mkdir()
    path = folder / "mcp.json"
    path.write_text(
        """{
  // VS Code allows comments
  "servers": {
    "time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time", "${workspaceFolder}/x",],},
    /* and block comments */
    "web": {"type": "sse", "url": "http://localhost:${env:WEB_PORT}/sse"},
    "tricky": {"type": "http", "url": "http://h/mcp?a=1,"},
  },
}"""
    )
    with pytest.raises(ConfigError, match=r"servers\.web\.url: variable \$\{WEB_PORT\} is not set"):
        load_config(path)
    configs = parse_config(
        json.loads(_strip(path.read_text())), source=str(path), workspace=str(tmp_path), environ={"WEB_PORT": "9"}
    )
    assert configs["time"].args == ["mcp-server-time", f"{tmp_path}/x"]
    assert configs["web"].transport == "sse" and configs["web"].url == "http://localhost:9/sse"
    assert configs["tricky"].url == "http://h/mcp?a=1,"


def _strip(text: str) -> str:
    from mcp_notebook.core.config import _strip_jsonc

    return _strip_jsonc(text)


def test_unset_variable_names_variable_file_and_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"s": {"command": "x", "env": {"K": "${NOT_SET_ANYWHERE}"}}}}))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message and "mcpServers.s.env.K" in message and "${NOT_SET_ANYWHERE}" in message
    assert ":-default" in message


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", r"not valid JSON at line 1 column 2"),
        ("[]", "top level must be a JSON object"),
        ('{"other": {}}', "no 'mcpServers'"),
        ('{"mcpServers": []}', "mcpServers must be an object"),
        ('{"mcpServers": {"s": "npx"}}', r"mcpServers\.s: must be an object"),
        ('{"mcpServers": {"s": {"args": ["x"]}}}', r"mcpServers\.s\.command: missing"),
        ('{"mcpServers": {"s": {"command": "x", "args": "y"}}}', r"mcpServers\.s\.args: must be a list of strings"),
        ('{"mcpServers": {"s": {"command": 3}}}', r"mcpServers\.s\.command: must be a string, not int"),
        ('{"mcpServers": {"s": {"type": "ws", "url": "x"}}}', r"mcpServers\.s\.type: unknown transport 'ws'"),
        ('{"mcpServers": {"a__b": {"command": "x"}}}', r"invalid server name 'a__b'"),
    ],
)
def test_malformed_files_name_file_and_key(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match=expected) as info:
        load_config(path)
    assert str(info.value).startswith(str(path))
    assert "\n" not in str(info.value)


def test_missing_file() -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config("/nonexistent/.mcp.json")


def test_client_load_connects_every_server(tmp_path: Path, everything_cmd, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    command, args = everything_cmd
    faulty, faulty_args = faulty_cmd("crash-at-start")
    monkeypatch.setenv("EVERYTHING_JS", args[0])
    (tmp_path / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "everything": {"command": command, "args": ["${EVERYTHING_JS}", "stdio"]},
                    "time": {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone=UTC"]},
                    "broken": {"command": faulty, "args": faulty_args},
                }
            }
        )
    )
    monkeypatch.chdir(tmp_path)
    client = Client()
    try:
        servers = client.load()
        assert [s.name for s in servers] == ["everything", "time", "broken"]
        assert client["everything"].status is Status.CONNECTED
        assert client["time"].status is Status.CONNECTED
        assert client["broken"].status is Status.FAILED and "MY_API_KEY" in (client["broken"].error or "")
        rows = {row["name"]: row for row in client.status()}
        assert rows["time"]["server"] == "mcp-time" and rows["broken"]["status"] == "failed"
    finally:
        client.close()
