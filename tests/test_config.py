"""Config files: Claude Code's .mcp.json and VS Code's mcp.json, with ${VAR} expansion."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from support.peers import faulty_cmd

from mcp_notebook import (
    Client,
    ConfigError,
    ConfigWarning,
    NotConnected,
    RequestTimeout,
    ServerConfig,
    Settings,
    Status,
    load_config,
)
from mcp_notebook.core.config import schema as configschema
from mcp_notebook.core.config.scopes import (
    CONFIG_DIR_ENV,
    load_scopes,
    looked_in,
    remove_saved,
    save_server,
    user_config_dir,
    user_file,
)
from mcp_notebook.core.config.servers import parse_config


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
    "tricky": {"type": "http", "url": "http://h/mcp?a=1,"}, // a comment after a trailing comma
    "last": {"command": "x"}, /* one more */
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
    assert configs["tricky"].url == "http://h/mcp?a=1," and configs["last"].command == "x"


def _strip(text: str) -> str:
    from mcp_notebook.core.config.servers import strip_jsonc

    return strip_jsonc(text)


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


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"command": "x", "args": ["-m", 3]}, r"mcpServers\.s\.args\[1\]: must be a string, not int$"),
        ({"command": "x", "env": {"A": "1", "B": [2]}}, r"mcpServers\.s\.env\.B: must be a string$"),
        ({"command": "x", "env": ["A=1"]}, r"mcpServers\.s\.env: must be an object of strings$"),
        ({"command": "x", "cwd": ["/tmp"]}, r"mcpServers\.s\.cwd: must be a string, not list$"),
        ({"url": "https://h/mcp", "headers": {"X": None}}, r"mcpServers\.s\.headers\.X: must be a string$"),
        ({"url": "https://h/mcp", "oauth": {"clientId": 7}}, r"mcpServers\.s\.oauth\.clientId: must be a string$"),
        (
            {"url": "https://h/mcp", "oauth": {"redirectPort": 70000}},
            r"mcpServers\.s\.oauth\.redirectPort: must be a port",
        ),
        ({"url": "https://h/mcp", "oauth": "x"}, r"mcpServers\.s\.oauth: must be an object$"),
        ({"url": 3}, r"mcpServers\.s\.url: must be a string, not int$"),
        ({"type": "http"}, r"mcpServers\.s\.url: missing; it is required$"),
        ({"transport": "ws", "url": "x"}, r"mcpServers\.s\.transport: unknown transport 'ws'; use stdio, http or sse$"),
        ({"disabled": False}, r"mcpServers\.s: needs a command \(a stdio server\) or a url"),
    ],
)
def test_a_wrong_value_at_a_nested_key_names_its_path(tmp_path: Path, entry: dict, expected: str) -> None:  # type: ignore[type-arg]
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"ok": {"command": "x"}, "s": entry}}))
    with pytest.raises(ConfigError, match=f"^{re.escape(str(path))}: {expected}") as info:
        load_config(path)
    assert "\n" not in str(info.value)


def test_vs_code_and_the_local_scope_name_their_own_paths(tmp_path: Path, project: Path) -> None:
    vscode = tmp_path / "mcp.json"
    vscode.write_text('{"servers": {"s": {"type": "stdio", "command": "x", "args": [true]}}}')
    with pytest.raises(
        ConfigError, match=rf"^{re.escape(str(vscode))}: servers\.s\.args\[0\]: must be a string, not bool$"
    ):
        load_config(vscode)
    user_file().parent.mkdir(parents=True)
    elsewhere = {"mcpServers": {"t": {"command": 1}}}  # another project's: not read here, so not checked
    user_file().write_text(json.dumps({"projects": {str(project): {"mcpServers": {"s": {"command": "x", "timeout": 0}}},
                                                    "/elsewhere": elsewhere}}))  # fmt: skip
    where = re.escape(f"{user_file()}: projects[{project}]: mcpServers.s.timeout")
    with pytest.raises(ConfigError, match=rf"^{where}: must be a number above 0, not 0$"):
        load_scopes()
    user_file().write_text(json.dumps({"projects": {str(project): {"mcpServers": {"s": {"command": "x"}}},
                                                    "/elsewhere": elsewhere}}))  # fmt: skip
    assert list(load_scopes()) == ["s"]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"name": "a b", "command": "x"}, "invalid server name 'a b': use letters, digits, '-', '_' and '.' (no '__')"),
        (
            {"command": "x", "startup_timeout": -1},
            "server 's': startup_timeout must be a number of seconds above 0, not -1",
        ),
        (
            {"command": "x", "request_timeout": True},
            "server 's': request_timeout must be a number of seconds above 0, not True",
        ),
        ({"transport": "ws", "url": "u"}, "server 's': unknown transport 'ws'; use stdio, http, sse or auto"),
        ({"command": "x", "protocol": "2026"}, "server 's': unknown protocol '2026'; use auto, legacy, 2026-07-28"),
        (
            {"transport": "sse", "url": "u", "protocol": "2026-07-28"},
            "server 's': protocol 2026-07-28 has no legacy SSE",
        ),
        ({"transport": "stdio"}, "server 's': a stdio server needs a command"),
        ({"transport": "http", "url": ""}, "server 's': an http server needs a url"),
    ],
)
def test_a_server_config_made_in_python_is_checked_too(fields: dict[str, object], expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        ServerConfig(**{"name": "s", **fields})  # type: ignore[arg-type]
    assert str(info.value).startswith(expected)


def test_the_config_schemas_are_valid_and_every_rule_says_what_is_wrong() -> None:
    """A rule without words would fall back to a generic message: each keyword that can fail,
    in every subschema, has a ``message`` (configschema.py), and each ``additionalProperties:
    false`` an ``ignored``. The insides of if, anyOf and not only decide: the keyword holding
    them speaks."""
    import jsonschema

    rules = {"type", "enum", "const", "pattern", "minimum", "maximum", "exclusiveMinimum", "minLength", "required",
             "anyOf", "not"}  # fmt: skip
    inside = ("items", "additionalProperties", "propertyNames", "then", "else")
    missing = []

    def walk(schema: object, where: str) -> None:
        if not isinstance(schema, dict):
            return
        message = schema.get("message")
        for rule in sorted(rules & set(schema)):
            if not (isinstance(message, str) or (isinstance(message, dict) and rule in message)):
                missing.append(f"{where}: {rule}")
        if schema.get("additionalProperties") is False and "*" not in schema.get("ignored", {}):
            missing.append(f"{where}: additionalProperties")
        for name, sub in schema.get("properties", {}).items():
            walk(sub, f"{where}.{name}")
        for i, sub in enumerate(schema.get("allOf", [])):
            walk(sub, f"{where}/allOf[{i}]")
        for key in inside:
            walk(schema.get(key), f"{where}/{key}")

    for name in ("CLAUDE_CODE", "VS_CODE", "SERVER_CONFIG", "SERVER_NAME"):
        jsonschema.Draft202012Validator.check_schema(getattr(configschema, name))
        walk(getattr(configschema, name), name)
    for kind, schema in configschema.SERVERS.items():
        jsonschema.Draft202012Validator.check_schema(schema)
        walk(schema, f"SERVERS[{kind}]")
    assert not missing, missing


def test_jsonschema_is_imported_when_a_file_is_read_not_before(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text('{"mcpServers": {"s": {"command": "x"}}}')
    code = (
        "import sys\nfrom mcp_notebook.core.config import servers as config, scopes\n"
        "print('jsonschema' in sys.modules)\n"
        f"config.load_config({str(path)!r})\nprint('jsonschema' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


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
        servers = client.load(trust=True)  # the folder's own .mcp.json: trusted here (see test_trust.py)
        assert [s.name for s in servers] == ["everything", "time", "broken"]
        assert client["everything"].status is Status.CONNECTED
        assert client["time"].status is Status.CONNECTED
        assert client["broken"].status is Status.FAILED and "MY_API_KEY" in (client["broken"].error or "")
        rows = {row["name"]: row for row in client.status()}
        assert rows["time"]["server"] == "mcp-time" and rows["broken"]["status"] == "failed"
    finally:
        client.close()


# -- keys beyond command/url: warnings, disabled, timeouts, envFile --------------------------


def _parsed_with_warnings(data: dict, **kwargs: object) -> tuple[dict, list[str]]:  # type: ignore[type-arg]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        configs = parse_config(data, **kwargs)  # type: ignore[arg-type]
    assert all(issubclass(w.category, ConfigWarning) for w in caught)
    return configs, [str(w.message) for w in caught]


def test_unsupported_keys_warn_once_each_naming_key_and_server() -> None:
    data = {
        "mcpServers": {
            "local": {"command": "x", "autoApprove": ["echo"], "dev": {"watch": "*.py"}, "headers": {"A": "b"}},
            "remote": {"type": "http", "url": "https://h/mcp", "oauth": {"clientId": "c", "audience": "x"},
                       "description": "a note", "callbackPort": 1},
        }
    }  # fmt: skip
    configs, messages = _parsed_with_warnings(data, source=".mcp.json")
    assert set(configs) == {"local", "remote"}  # nothing failed the load
    assert configs["remote"].oauth == {"client_id": "c"}
    assert configs["local"].allowed_tools == ["echo"]  # Cline's autoApprove: tools that never ask
    assert sorted(messages) == sorted([
        ".mcp.json: mcpServers.local: 'dev' is not supported; ignored",
        ".mcp.json: mcpServers.local: 'headers' does not apply to a stdio server; ignored",
        ".mcp.json: mcpServers.remote.oauth: 'audience' is not supported; ignored (known: clientId, clientSecret, "
        "clientMetadataUrl, scopes, redirectPort, callbackPort, grant, privateKey, privateKeyFile, signingAlg, "
        "assertion, assertionFile, idToken, idTokenFile, idpTokenEndpoint, idpClientId, idpClientSecret)",
        ".mcp.json: mcpServers.remote: 'description' is not supported; ignored",
        ".mcp.json: mcpServers.remote: 'callbackPort' is not supported; ignored",
    ])  # fmt: skip


def test_disabled_and_per_server_timeouts() -> None:
    data = {
        "mcpServers": {
            "claude": {"command": "x", "disabled": True, "timeout": 120000},  # Claude Code: milliseconds
            "codex": {"command": "x", "startup_timeout_sec": 90, "tool_timeout_sec": 2.5},  # Codex: seconds
            "plain": {"command": "x"},
        }
    }
    configs, messages = _parsed_with_warnings(data)
    assert not messages
    claude, codex, plain = configs["claude"], configs["codex"], configs["plain"]
    assert claude.disabled and claude.request_timeout == 120.0 and claude.startup_timeout is None
    assert not codex.disabled and codex.startup_timeout == 90.0 and codex.request_timeout == 2.5
    assert (plain.disabled, plain.startup_timeout, plain.request_timeout) == (False, None, None)
    assert "disabled=True" in repr(claude) and "request_timeout=120.0" in repr(claude)
    # Below 1000, Claude Code ignores a timeout: so do we, saying what to write instead.
    configs, messages = _parsed_with_warnings({"mcpServers": {"cline": {"command": "x", "timeout": 60}}})
    assert configs["cline"].request_timeout is None
    assert messages == ["config: mcpServers.cline.timeout: 60 is in milliseconds, and below 1000 it is ignored; "
                        "write 60000 for 60 s"]  # fmt: skip


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"disabled": "yes"}, r"mcpServers\.s\.disabled: must be true or false"),
        ({"timeout": "60s"}, r'mcpServers\.s\.timeout: must be a number above 0, not "60s"'),
        ({"startup_timeout_sec": 0}, r"mcpServers\.s\.startup_timeout_sec: must be a number above 0, not 0"),
        ({"tool_timeout_sec": True}, r"mcpServers\.s\.tool_timeout_sec: must be a number above 0, not true"),
    ],
)
def test_wrong_values_of_known_keys_are_errors(entry: dict, expected: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ConfigError, match=expected):
        parse_config({"mcpServers": {"s": {"command": "x", **entry}}})


def test_env_file_is_read_relative_to_the_workspace(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "# a comment\nexport TOKEN=from-file\nGREETING='hello there'\nLEVEL=debug # trailing note\nOWN=file\n"
    )
    data = {"servers": {"s": {"type": "stdio", "command": "x", "envFile": "${workspaceFolder}/.env",
                              "env": {"OWN": "env wins"}}}}  # fmt: skip
    config = parse_config(data, workspace=str(tmp_path))["s"]
    assert config.env == {"TOKEN": "from-file", "GREETING": "hello there", "LEVEL": "debug", "OWN": "env wins"}
    relative = parse_config({"servers": {"s": {"command": "x", "envFile": ".env"}}}, workspace=str(tmp_path))["s"]
    assert relative.env["TOKEN"] == "from-file"
    with pytest.raises(ConfigError, match=r"servers\.s\.envFile: .*missing\.env: no such file"):
        parse_config({"servers": {"s": {"command": "x", "envFile": "missing.env"}}}, workspace=str(tmp_path))
    (tmp_path / "bad.env").write_text("OK=1\nthis line has secret-value-123 but no equals sign\n")
    with pytest.raises(ConfigError, match=r"bad\.env line 2: expected KEY=VALUE") as info:
        parse_config({"servers": {"s": {"command": "x", "envFile": "bad.env"}}}, workspace=str(tmp_path))
    assert "secret-value-123" not in str(info.value)


def test_python_means_this_python() -> None:
    major, minor = sys.version_info[:2]
    for name in ("python", f"python{major}", f"python{major}.{minor}"):
        config = ServerConfig("s", command=name, args=["-m", "mcp_notebook.demo"])
        assert config.executable == sys.executable
        assert config.describe() == f"{name} → {sys.executable} -m mcp_notebook.demo"
    for name in (f"python{major}.{minor + 1}", "/usr/bin/python3", "node"):
        config = ServerConfig("s", command=name)
        assert config.executable == name and "→" not in config.describe()


# -- scopes: where saved servers live, precedence, writing -----------------------------------


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder as the working directory, and a private user config folder."""
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "user"))
    monkeypatch.chdir(folder)
    return folder


def test_user_config_folder_per_platform(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "override"))
    assert user_file() == tmp_path / "override" / "mcp.json"
    monkeypatch.delenv(CONFIG_DIR_ENV)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("APPDATA", str(tmp_path / "roaming"))
    expected = {"linux": tmp_path / "xdg", "darwin": tmp_path / "Library" / "Application Support",
                "win32": tmp_path / "roaming"}  # fmt: skip
    for platform, base in expected.items():
        monkeypatch.setattr(sys, "platform", platform)
        assert user_config_dir() == base / "mcp-notebook"


def test_scopes_load_local_over_project_over_user(project: Path) -> None:
    def entry(tag: str) -> dict:  # type: ignore[type-arg]
        return {"command": "echo", "args": [tag]}

    user = {
        "mcpServers": {"a": entry("user"), "b": entry("user")},
        "projects": {
            str(project): {"mcpServers": {"c": entry("local"), "d": entry("local")}},
            "/some/other/project": {"mcpServers": {"e": entry("elsewhere")}},
        },
    }
    user_file().parent.mkdir(parents=True)
    user_file().write_text(json.dumps(user))
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"b": entry("project"), "c": entry("project")}}))
    with pytest.warns(ConfigWarning, match=r"not trusted, so not started: b, c; 'b' is your user server, used instead"):
        assert load_scopes()["b"].source == "user"  # the project's, until the folder is trusted
    configs = load_scopes(trusting=True)
    assert {name: (c.source, c.args[0]) for name, c in configs.items()} == {
        "a": ("user", "user"),
        "b": ("project", "project"),
        "c": ("local", "local"),
        "d": ("local", "local"),
    }


def test_scopes_with_no_files_are_empty(project: Path) -> None:
    assert load_scopes() == {}
    assert str(user_file()) in looked_in() and str(project / ".mcp.json") in looked_in()


def test_saving_keeps_other_entries_and_keys_and_writes_references_not_secrets(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = project / ".mcp.json"
    shared.write_text(json.dumps({"$schema": "x", "mcpServers": {"other": {"command": "uvx", "extra": 1}}}))
    secrets = {"API_KEY": "sk-env-0123456789", "TOKEN": "tok-arg-0123456789", "HEADER": "hdr-0123456789",
               "BEARER": "bearer-0123456789", "PASSWORD": "pw-0123456789", "QUERY": "q-0123456789",
               "CLIENT": "client-secret-0123456789"}  # fmt: skip
    stdio = ServerConfig("tool", command="python", args=["-m", "srv", "--api-token", secrets["TOKEN"]],
                         env={"API_KEY": secrets["API_KEY"], "LOG": "debug"}, startup_timeout=90)  # fmt: skip
    remote = ServerConfig(
        "remote",
        transport="http",
        url=f"https://me:{secrets['PASSWORD']}@example.com/mcp?api_key={secrets['QUERY']}&page=1",
        headers={"Authorization": f"Bearer {secrets['BEARER']}", "X-Api-Key": secrets["HEADER"], "Accept": "a/b"},
        oauth={"client_id": "cid", "client_secret": secrets["CLIENT"]},
        request_timeout=120,
    )
    saved = save_server(stdio, "project")
    assert saved.path == shared and [v.name for v in saved.variables] == ["API_KEY", "TOOL_API_TOKEN"]
    saved = save_server(remote, "project", refs={"headers.Authorization": "Bearer ${MY_TOKEN}"})
    assert [v.name for v in saved.variables] == ["REMOTE_API_KEY", "REMOTE_CLIENT_SECRET", "REMOTE_PASSWORD",
                                                 "REMOTE_X_API_KEY"]  # fmt: skip
    text = shared.read_text()
    assert not [name for name, value in secrets.items() if value in text]
    data = json.loads(text)
    assert text == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    assert data["$schema"] == "x" and data["mcpServers"]["other"] == {"command": "uvx", "extra": 1}
    assert data["mcpServers"]["tool"] == {
        "type": "stdio",
        "command": "python",  # as typed: the file is shared, each kernel resolves it
        "args": ["-m", "srv", "--api-token", "${TOOL_API_TOKEN}"],
        "env": {"API_KEY": "${API_KEY}", "LOG": "debug"},
        "startup_timeout_sec": 90,
    }
    assert data["mcpServers"]["remote"] == {
        "type": "http",
        "url": "https://me:${REMOTE_PASSWORD}@example.com/mcp?api_key=${REMOTE_API_KEY}&page=1",
        "headers": {"Authorization": "Bearer ${MY_TOKEN}", "X-Api-Key": "${REMOTE_X_API_KEY}", "Accept": "a/b"},
        "oauth": {"clientId": "cid", "clientSecret": "${REMOTE_CLIENT_SECRET}"},
        "timeout": 120000,
    }
    # Loaded where the variables are set, the servers are what was saved.
    for name, value in {"API_KEY": secrets["API_KEY"], "TOOL_API_TOKEN": secrets["TOKEN"],
                        "MY_TOKEN": secrets["BEARER"], "REMOTE_API_KEY": secrets["QUERY"],
                        "REMOTE_CLIENT_SECRET": secrets["CLIENT"], "REMOTE_PASSWORD": secrets["PASSWORD"],
                        "REMOTE_X_API_KEY": secrets["HEADER"]}.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    with pytest.warns(ConfigWarning, match=r"mcpServers\.other: 'extra' is not supported; ignored"):
        loaded = load_scopes(trusting=True)  # a file that was there before: trusted here (see test_trust.py)
    for config in (stdio, remote):
        again = loaded[config.name]
        assert again.source == "project"
        config.source = "project"
        assert again == config


def test_local_and_user_scopes_share_the_private_user_file(project: Path) -> None:
    save_server(ServerConfig("mine", command="node", args=["x.js"]), "user")
    save_server(ServerConfig("here", command="node", args=["y.js"], disabled=True), "local")
    path = user_file()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    data = json.loads(path.read_text())
    assert data["mcpServers"] == {"mine": {"type": "stdio", "command": "node", "args": ["x.js"]}}
    assert data["projects"] == {
        str(project): {"mcpServers": {"here": {"type": "stdio", "command": "node", "args": ["y.js"], "disabled": True}}}
    }
    assert not (project / ".mcp.json").exists()
    assert remove_saved("here", "local") == path
    assert "projects" not in json.loads(path.read_text())  # nothing left for this project: no empty entry
    with pytest.raises(ConfigError, match=r"no server 'here' saved there \(local scope\)"):
        remove_saved("here", "local")


def test_a_file_with_comments_or_bad_json_is_never_rewritten(project: Path) -> None:
    commented = project / "mcp.json"
    original = '{\n  // mine\n  "servers": {"s": {"command": "x"}}\n}\n'
    commented.write_text(original)
    with pytest.raises(ConfigError, match=r"comments or trailing commas, which rewriting would lose"):
        remove_saved("s", str(commented))
    assert commented.read_text() == original
    broken = project / ".mcp.json"
    broken.write_text("{not json")
    with pytest.raises(ConfigError, match=r"not valid JSON"):
        save_server(ServerConfig("s", command="x"), "project")
    assert broken.read_text() == "{not json"
    plain = project / "vscode.json"
    plain.write_text(json.dumps({"servers": {"s": {"command": "x"}, "t": {"command": "y"}}}))
    remove_saved("s", str(plain))
    assert json.loads(plain.read_text()) == {"servers": {"t": {"command": "y"}}}


def test_disabled_server_waits_for_restart_and_a_per_server_timeout_applies(project: Path) -> None:
    faulty, faulty_args = faulty_cmd("ok")
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "demo": {"command": "python", "args": ["-m", "mcp_notebook.demo"], "disabled": True},
        "slow": {"command": faulty, "args": faulty_args, "tool_timeout_sec": 1},
    }}))  # fmt: skip
    client = Client(settings=Settings(request_timeout=30))
    client.approval.mode = "never"
    try:
        demo, slow = client.load(trust=True)
        assert demo.status is Status.DISABLED and demo.pid is None
        assert {r["name"]: (r["status"], r["source"]) for r in client.status()} == {
            "demo": ("disabled", "project"),
            "slow": ("connected", "project"),
        }
        with pytest.raises(NotConnected, match="'demo' is disabled"):
            demo.list_tools()
        client.restart("demo")  # a disabled server connects when asked to
        assert demo.status is Status.CONNECTED and "query_penguins" in {t.name for t in demo.list_tools()}
        # Its own 1 s, not the client's 30 s; the connection stays usable.
        with pytest.raises(RequestTimeout, match="got no answer in 1 s"):
            slow.call_tool("hang", validate=False)
        assert slow.call_tool("echo", {"message": "still here"}, timeout=30, validate=False).text
    finally:
        client.close()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc: a folder nobody, root included, can create")
def test_a_file_that_cannot_be_written_is_a_one_line_error() -> None:
    with pytest.raises(ConfigError, match=r"^/proc/.*/\.mcp\.json: cannot write it \(.*\); nothing was changed$"):
        save_server(ServerConfig("s", command="x"), "project", project="/proc/self/no-such-folder")


def test_the_quick_yes_never_passes_what_the_schema_refuses() -> None:
    """configschema.plainly_valid spares a Python-made config the jsonschema import (seconds in
    some environments): over many configs, right and wrong, it says yes only where the schema does."""
    import itertools

    import jsonschema

    validator = jsonschema.Draft202012Validator(configschema.SERVER_CONFIG)
    names = ["s", "a.b-c_1", "", "a__b", "bad name", 3, None]
    transports = ["stdio", "http", "sse", "auto", "ftp", None]
    commands = ["node", "", None, 1]
    urls = ["http://x/mcp", "", None]
    protocols = ["auto", "legacy", "2026-07-28", "2025-11-25", "1999-01-01"]
    seconds = [None, 5, 0.5, 0, -1, True, "5", float("nan"), float("inf")]
    yes = 0
    for name, transport, command, url, protocol, timeout in itertools.product(
        names, transports, commands, urls, protocols, seconds
    ):
        fields = {"name": name, "transport": transport, "command": command, "url": url, "protocol": protocol,
                  "startup_timeout": timeout, "request_timeout": None, "enabled_tools": None,
                  "disabled_tools": [], "max_concurrency": None}  # fmt: skip
        if configschema.plainly_valid(fields):
            yes += 1
            assert validator.is_valid(fields), fields
        if configschema.plain_name(name):
            assert jsonschema.Draft202012Validator(configschema.SERVER_NAME).is_valid({"name": name}), name
    assert yes > 100  # it does say yes to the usual configs
    lists = [None, [], ["get-*"], ["a", "b"], [""], "get-*", [1], [None], ("a",)]
    for enabled, disabled in itertools.product(lists, lists):
        fields = {"name": "s", "transport": "stdio", "command": "node", "url": None, "protocol": "auto",
                  "startup_timeout": None, "request_timeout": None, "enabled_tools": enabled,
                  "disabled_tools": disabled, "max_concurrency": None}  # fmt: skip
        if configschema.plainly_valid(fields):
            assert validator.is_valid(fields), fields
    for limit in [None, 1, 8, 0, -1, 2.0, 2.5, True, "2", [2]]:
        fields = {"name": "s", "transport": "stdio", "command": "node", "url": None, "protocol": "auto",
                  "startup_timeout": None, "request_timeout": None, "enabled_tools": None,
                  "disabled_tools": [], "max_concurrency": limit}  # fmt: skip
        assert configschema.plainly_valid(fields) == (limit in (None, 1, 8) and limit is not True), limit
        if configschema.plainly_valid(fields):
            assert validator.is_valid(fields), fields


def test_adding_a_server_from_python_does_not_import_jsonschema() -> None:
    code = (
        "import sys\nfrom mcp_notebook import ServerConfig\n"
        "ServerConfig('s', command='node', startup_timeout=5)\n"
        "ServerConfig('r', transport='http', url='http://127.0.0.1:1/mcp', protocol='2026-07-28')\n"
        "print('jsonschema' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False"]
