"""Servers from the MCP clients people already use: ``%mcp load --from CLIENT``
(``client.load_from``) reads each client's documented files, on Linux, macOS and Windows
layouts, in its own dialect; ``--dry-run`` starts nothing; ``--save`` copies them into our
scopes with secrets as ``${VAR}``; ``--from`` alone lists the files."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from IPython.core.error import UsageError
from support.shells import extension_loaded, line, run

from mcp_notebook import Client, ConfigWarning
from mcp_notebook.core.config.clients import CLIENTS, places, read_client
from mcp_notebook.core.config.scopes import CONFIG_DIR_ENV, trust_project, user_file

TOKEN = "tok-5e3c7a-never-shown"


@pytest.mark.parametrize(
    ("platform", "expected"),
    [
        (
            "linux",
            {
                "claude-desktop": ["H/.config/Claude/claude_desktop_config.json"],
                "claude-code": ["H/.claude.json", "P/.mcp.json", "H/.claude.json"],
                "cursor": ["H/.cursor/mcp.json", "P/.cursor/mcp.json"],
                "vscode": ["H/.config/Code/User/mcp.json", "P/.vscode/mcp.json"],
                "windsurf": ["H/.codeium/windsurf/mcp_config.json"],
                "gemini": ["H/.gemini/settings.json", "P/.gemini/settings.json"],
                "codex": ["H/.codex/config.toml", "P/.codex/config.toml"],
            },
        ),
        (
            "darwin",
            {
                "claude-desktop": ["H/Library/Application Support/Claude/claude_desktop_config.json"],
                "vscode": ["H/Library/Application Support/Code/User/mcp.json", "P/.vscode/mcp.json"],
                "cursor": ["H/.cursor/mcp.json", "P/.cursor/mcp.json"],
            },
        ),
        (
            "win32",
            {
                "claude-desktop": ["A/Claude/claude_desktop_config.json"],
                "vscode": ["A/Code/User/mcp.json", "P/.vscode/mcp.json"],
                "windsurf": ["H/.codeium/windsurf/mcp_config.json"],
                "codex": ["H/.codex/config.toml", "P/.codex/config.toml"],
            },
        ),
    ],
)
def test_each_clients_files_where_its_documentation_puts_them(platform: str, expected: dict[str, list[str]]) -> None:
    roots = {"H": "/home/ada", "P": "/work/project", "A": "/home/ada/AppData/Roaming"}
    environ = {"APPDATA": roots["A"]} if platform == "win32" else {}
    for client, paths in expected.items():
        found = places(client, home=roots["H"], project=roots["P"], platform=platform, environ=environ)
        assert [str(p.path) for p in found] == [roots[p[0]] + p[1:] for p in paths], client
    assert [p.scope for p in places("claude-code", home="/h", project="/p", platform="linux", environ={})] == [
        "user",
        "project",
        "local",
    ]
    moved = places("codex", home="/h", project="/p", platform="linux", environ={"CODEX_HOME": "/etc/codex"})
    assert str(moved[0].path) == "/etc/codex/config.toml"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home and a project folder (the current one) holding every client's files; the
    person trusts the project folder (its files are theirs: test_trust.py tries a cloned one)."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    for name in ("HOME", "XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "APPDATA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DOCS_TOKEN", TOKEN)
    monkeypatch.chdir(project)
    demo = {"command": "python", "args": ["-m", "mcp_notebook.demo"]}

    def write(path: Path, data: Any) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data))

    write(home / ".config/Claude/claude_desktop_config.json", {"mcpServers": {"penguins": demo}})
    write(
        home / ".claude.json",
        {
            "numStartups": 3,
            "mcpServers": {"shared": demo, "mine": {**demo, "env": {"LEVEL": "user"}}},
            "projects": {str(project.resolve()): {"mcpServers": {"mine": {**demo, "env": {"LEVEL": "local"}}}}},
        },
    )
    write(project / ".mcp.json", {"mcpServers": {"mine": {**demo, "env": {"LEVEL": "project"}}}})
    write(home / ".cursor/mcp.json", {"mcpServers": {"notes": {"url": "https://notes.example/mcp"}}})
    write(
        project / ".cursor/mcp.json",
        {"mcpServers": {"demo": {**demo, "cwd": "${userHome}", "env": {"TOKEN": "${env:DOCS_TOKEN}"}}}},
    )
    write(
        project / ".vscode/mcp.json",
        '{"servers": {"local": {"type": "stdio", "command": "python", "args": ["${workspaceFolder}/s.py"]}},'
        " // JSON with comments\n}",
    )
    write(
        home / ".codeium/windsurf/mcp_config.json",
        {
            "mcpServers": {
                "My Docs": {"serverUrl": "https://docs.example/mcp", "headers": {"X-Key": "${env:DOCS_TOKEN}"}}
            }
        },
    )
    write(
        home / ".gemini/settings.json",
        {
            "theme": "dark",
            "mcpServers": {
                "api": {
                    "httpUrl": "https://api.example/mcp",
                    "headers": {"Authorization": "Bearer $DOCS_TOKEN"},
                    "includeTools": ["search*"],
                    "excludeTools": ["search_all"],
                    "timeout": 30000,
                    "trust": True,
                },
                "old": {"url": "https://old.example/sse"},
            },
        },
    )
    write(
        home / ".codex/config.toml",
        """
model = "o4"
[mcp_servers.docs]
url = "https://docs.example/mcp"
bearer_token_env_var = "DOCS_TOKEN"
enabled_tools = ["read_*"]
tool_timeout_sec = 45
required = true

[mcp_servers.files]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
env_vars = ["PATH"]
enabled = false
startup_timeout_ms = 20000
""",
    )
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "ours"))  # trusted, and saved, here
    assert trust_project(project) == project / ".mcp.json"
    return home


def read(client: str) -> tuple[dict[str, Any], list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConfigWarning)
        found = {one.config.name: one for one in read_client(client)}
    return found, [str(w.message) for w in caught]


@pytest.mark.usefixtures("home")
def test_each_clients_dialect_reads_as_ours() -> None:
    desktop, said = read("claude-desktop")
    assert desktop["penguins"].config.args == ["-m", "mcp_notebook.demo"] and not said

    code, said = read("claude-code")
    assert list(code) == ["shared", "mine"] and code["mine"].config.env == {"LEVEL": "local"}
    assert said == [f"{Path.cwd() / '.mcp.json'}: project server 'mine' replaces your user server of that name"]
    assert code["mine"].place.scope == "local"

    cursor, _ = read("cursor")
    assert cursor["notes"].config.transport == "http" and cursor["demo"].config.cwd == str(Path.home())
    assert cursor["demo"].config.env == {"TOKEN": TOKEN} and cursor["demo"].refs == {"env.TOKEN": "${DOCS_TOKEN}"}

    vscode, _ = read("vscode")
    assert vscode["local"].config.args == [str(Path.cwd() / "s.py")]

    windsurf, said = read("windsurf")
    assert said == [f"{Path.home()}/.codeium/windsurf/mcp_config.json: server 'My Docs' is named 'My-Docs' here"]
    assert windsurf["My-Docs"].config.url == "https://docs.example/mcp"
    assert windsurf["My-Docs"].config.headers == {"X-Key": TOKEN}

    gemini, said = read("gemini")
    api = gemini["api"].config
    assert (api.transport, api.url, api.request_timeout) == ("http", "https://api.example/mcp", 30.0)
    assert api.headers == {"Authorization": f"Bearer {TOKEN}"}
    assert (api.enabled_tools, api.disabled_tools) == (["search*"], ["search_all"])
    assert gemini["old"].config.transport == "sse"
    assert len(said) == 1 and "mcpServers.api" in said[0] and "'trust' is not supported" in said[0], said

    codex, said = read("codex")
    docs, files = codex["docs"].config, codex["files"].config
    assert docs.headers == {"Authorization": f"Bearer {TOKEN}"} and docs.enabled_tools == ["read_*"]
    assert docs.request_timeout == 45 and codex["docs"].refs == {"headers.Authorization": "Bearer ${DOCS_TOKEN}"}
    assert files.disabled and files.startup_timeout == 20 and files.command == "npx"
    assert len(said) == 1 and "mcp_servers.docs" in said[0] and "'required' is not supported" in said[0], said
    assert all(TOKEN not in repr(one.config) for one in [*cursor.values(), *gemini.values(), *codex.values()])


def test_load_from_lists_files_shows_a_dry_run_and_saves_references(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with extension_loaded() as ip:
        files = line(ip, "load --from")
        assert isinstance(files, pd.DataFrame) and set(files["client"]) == set(CLIENTS)
        present = files[files["exists"]]
        assert dict(zip(present["file"], present["servers"], strict=True))[str(home / ".codex/config.toml")] == 2
        assert not files.loc[files["client"] == "claude-desktop", "error"].notna().any()

        found = line(ip, "load --from gemini --dry-run")
        assert list(found["name"]) == ["api", "old"] and list(found["transport"]) == ["http", "sse"]
        assert list(found["target"]) == ["https://api.example/mcp", "https://old.example/sse"]
        assert line(ip, "list").empty  # nothing was added, nothing started

        run(ip, "%mcp load --from codex --dry-run --save user")
        with pytest.raises(UsageError, match="unknown client 'zed'; use one of claude-desktop"):
            run(ip, "%mcp load --from zed")
        with pytest.raises(UsageError, match="--dry-run and --save go with --from CLIENT"):
            run(ip, "%mcp load --dry-run")
    text = user_file().read_text()
    assert TOKEN not in text
    entry = json.loads(text)["mcpServers"]["docs"]
    assert entry["headers"] == {"Authorization": "Bearer ${DOCS_TOKEN}"} and entry["enabledTools"] == ["read_*"]
    assert json.loads(text)["mcpServers"]["files"]["disabled"] is True


def test_load_from_cursor_connects_its_servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".cursor").mkdir()
    entry = {"command": sys.executable, "args": ["-m", "mcp_notebook.demo"]}
    (tmp_path / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {"penguins": entry}}))
    client = Client()
    try:
        (server,) = client.load_from("cursor", trust=True)  # the person's own folder
        assert server.name == "penguins" and server.server_info["name"] == "penguins"
        assert server.config.source == str(tmp_path / ".cursor" / "mcp.json")
    finally:
        client.close()


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_the_user_files_of_macos_and_windows_are_read_where_they_are(tmp_path: Path, platform: str) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    apps = home / ("Library/Application Support" if platform == "darwin" else "AppData/Roaming")
    environ = {"APPDATA": str(apps)} if platform == "win32" else {}
    demo = {"command": "python", "args": ["-m", "mcp_notebook.demo"]}
    written = {
        "claude-desktop": (apps / "Claude/claude_desktop_config.json", {"mcpServers": {"desk": demo}}),
        "vscode": (apps / "Code/User/mcp.json", {"servers": {"code": {"type": "stdio", **demo}}}),
        "cursor": (home / ".cursor/mcp.json", {"mcpServers": {"cur": demo}}),
        "windsurf": (
            home / ".codeium/windsurf/mcp_config.json",
            {"mcpServers": {"surf": {"serverUrl": "https://s.example/mcp"}}},
        ),
        "gemini": (home / ".gemini/settings.json", {"mcpServers": {"gem": {"httpUrl": "https://g.example/mcp"}}}),
        "claude-code": (home / ".claude.json", {"mcpServers": {"cc": demo}}),
    }
    for path, data in written.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
    codex = home / ".codex/config.toml"
    codex.parent.mkdir(parents=True)
    codex.write_text('[mcp_servers.cx]\ncommand = "python"\nargs = ["-m", "mcp_notebook.demo"]\n')
    found = {
        client: [
            f.config.name for f in read_client(client, home=home, project=project, platform=platform, environ=environ)
        ]
        for client in CLIENTS
    }
    assert found == {
        "claude-desktop": ["desk"], "claude-code": ["cc"], "cursor": ["cur"], "vscode": ["code"],
        "windsurf": ["surf"], "gemini": ["gem"], "codex": ["cx"],
    }  # fmt: skip


def test_an_entry_we_cannot_read_is_skipped_and_the_rest_load_and_save_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("DOCS_TOKEN", TOKEN)
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "ours"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode/mcp.json").write_text(json.dumps({"servers": {
        "asks": {"type": "http", "url": "https://a.example/mcp", "headers": {"Key": "${input:key}"}},
        "odd": "not an entry",
        "fine": {"type": "stdio", "command": "python", "args": ["--header", "Authorization: Bearer ${env:DOCS_TOKEN}"]},
        "remote": {"type": "http", "url": "https://r.example/${env:DOCS_TOKEN}/mcp"},
    }}))  # fmt: skip
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex/config.toml").write_text('[mcp_servers.typo]\ncommand = "x"\nstartup_timeout_ms = "5000"\n')
    trust_project(tmp_path)  # the person's own folder (an untrusted one expands nothing, so finds no error)
    found, said = read("vscode")
    assert sorted(found) == ["fine", "remote"]
    assert any("servers.asks" in s and "${input:key}" in s and s.endswith("skipped") for s in said), said
    assert any("servers.odd" in s for s in said), said
    codex, said = read("codex")
    assert codex == {} and len(said) == 1 and "typo" in said[0], said
    with extension_loaded() as ip:
        run(ip, "%mcp load --from vscode --dry-run --save user")
    text = user_file().read_text()
    assert TOKEN not in text
    saved = json.loads(text)["mcpServers"]
    assert saved["fine"]["args"] == ["--header", "Authorization: Bearer ${DOCS_TOKEN}"]
    assert saved["remote"]["url"] == "https://r.example/${DOCS_TOKEN}/mcp"


def test_every_project_file_a_client_reads_is_one_folder_trust_knows(tmp_path: Path) -> None:
    """--trust trusts the folder's project files (trust.PROJECT_FILES): every client's project
    place is one of them, so none is left out of it."""
    from mcp_notebook.core.config.trust import PROJECT_FILES

    project = [p for c in CLIENTS for p in places(c, home=tmp_path / "h", project=tmp_path) if p.scope == "project"]
    assert {p.name for p in project} == set(PROJECT_FILES) and all(p.folder == tmp_path for p in project)
