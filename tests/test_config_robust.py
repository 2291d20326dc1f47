"""Config and command-line input that is hostile or careless: keys with escape sequences, an
``envFile`` that is a FIFO or huge, input nested deeper than Python recurses, timeouts that
are negative, NaN or infinite. Each through the real ``mcp-notebook`` command (one line on
stderr, the exit status) and the Python API or the magics."""

from __future__ import annotations

import json
import math
import os
import sys
import warnings
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from support.cli import DEMO
from support.cli import run as run_cli
from support.shells import extension_loaded, run
from traitlets import TraitError

from mcp_notebook import Client, ConfigError, ConfigWarning, Settings
from mcp_notebook.core.config.servers import ServerConfig, load_config

HOSTILE_KEY = "evil\x1b]0;owned\x07\x1b[31mKEY\u202e"
DEEP = 100_000  # deeper than json's decoder goes
RECURSES = 900  # json parses it; code that walks it recursively does not


def one_line_error(stderr: str) -> str:
    """The last line of stderr, checked to be the command's one-line error (no traceback)."""
    assert "Traceback" not in stderr and "unexpected" not in stderr, stderr[-2000:]
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("mcp-notebook: "), stderr[-2000:]
    return lines[-1]


def write_config(path: Path, servers: dict[str, object]) -> Path:
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


# -- g: a key with control characters is shown escaped -----------------------------------------


def test_an_unsupported_key_with_escape_sequences_is_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path / "keys.json", {"s": {"command": "python", "disabled": True, HOSTILE_KEY: 1}})
    code, _, stderr = run_cli("--config", str(config), "list", cwd=tmp_path)
    assert code == 0, stderr
    assert "is not supported; ignored" in stderr
    assert "\x1b" not in stderr and "\x07" not in stderr and "\u202e" not in stderr
    assert r"evil\x1b]0;owned\x07\x1b[31mKEY\u202e" in stderr  # every character there, visibly

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_config(config)
    (text,) = [str(w.message) for w in caught if issubclass(w.category, ConfigWarning)]
    assert r"'evil\x1b]0;owned\x07\x1b[31mKEY\u202e' is not supported; ignored" in text

    with extension_loaded() as ip:  # the magic's ⚠ line
        capsys.readouterr()
        run(ip, f"%mcp load {config}")
        shown = capsys.readouterr().out
        run(ip, "%mcp remove s")
    assert "\x1b" not in shown and r"'evil\x1b]0;owned\x07\x1b[31mKEY\u202e' is not supported; ignored" in shown


def test_a_key_with_escape_sequences_in_an_error_is_shown_escaped(tmp_path: Path) -> None:
    config = write_config(tmp_path / "env.json", {"s": {"command": "python", "env": {HOSTILE_KEY: None}}})
    code, _, stderr = run_cli("--config", str(config), "list", cwd=tmp_path)
    line = one_line_error(stderr)
    assert code == 2 and r"env.evil\x1b]0;owned\x07\x1b[31mKEY\u202e: must be a string" in line
    with pytest.raises(ConfigError) as raised:
        load_config(config)
    assert "\x1b" not in str(raised.value.args[0])


# -- h: envFile reads only a regular file, of a bounded size --------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_an_env_file_that_is_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "env.fifo")
    config = write_config(tmp_path / "fifo.json", {"s": {"command": "python", "envFile": "env.fifo"}})
    code, _, stderr = run_cli("--config", str(config), "list", cwd=tmp_path)
    line = one_line_error(stderr)
    assert code == 2 and "env.fifo: not a regular file" in line and "KEY=VALUE" in line

    # Another client's file, as load --from --dry-run reads it: the entry is skipped, said once.
    home = tmp_path / "home"
    vscode = home / ".config" / "Code" / "User"
    vscode.mkdir(parents=True)
    servers = {"bad": {"command": "python", "envFile": str(tmp_path / "env.fifo")}, "good": {"command": "python"}}
    (vscode / "mcp.json").write_text(json.dumps({"servers": servers}))
    code, stdout, stderr = run_cli("--format", "json", "load", "--from", "vscode", "--dry-run", cwd=tmp_path,
                               env={"HOME": str(home)})  # fmt: skip
    assert code == 0, stderr
    assert [row["name"] for row in json.loads(stdout)] == ["good"]
    assert "env.fifo: not a regular file" in stderr and "skipped" in stderr


def test_an_env_file_too_large_is_refused(tmp_path: Path) -> None:
    (tmp_path / "big.env").write_text("A=" + "x" * (2 << 20) + "\n")
    (tmp_path / "small.env").write_text("A=1\n")
    config = write_config(tmp_path / "big.json", {"s": {"command": "python", "envFile": "big.env"}})
    code, _, stderr = run_cli("--config", str(config), "list", cwd=tmp_path)
    line = one_line_error(stderr)
    assert code == 2 and "big.env: larger than 1 MiB" in line
    small = write_config(tmp_path / "small.json", {"s": {"command": "python", "envFile": "small.env"}})
    assert load_config(small)["s"].env == {"A": "1"}


# -- j: input nested too deeply is a usage error --------------------------------------------------


def test_a_config_file_nested_too_deeply_is_a_usage_error(tmp_path: Path) -> None:
    deep = "[" * DEEP + "]" * DEEP
    (tmp_path / "deep.json").write_text('{"mcpServers": {"s": {"command": "python", "args": ' + deep + "}}}")
    code, _, stderr = run_cli("--config", str(tmp_path / "deep.json"), "list", cwd=tmp_path)
    line = one_line_error(stderr)
    assert code == 2 and "nested too deeply" in line
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_config(tmp_path / "deep.json")

    # The project's own .mcp.json, found in the folder.
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / ".mcp.json").write_text((tmp_path / "deep.json").read_text())
    code, _, stderr = run_cli("list", cwd=tmp_path / "project", env={"MCP_NOTEBOOK_CONFIG_DIR": str(tmp_path / "ours")})
    line = one_line_error(stderr)
    assert code == 2 and "nested too deeply" in line


@pytest.mark.parametrize("depth", [50_000, RECURSES])  # (an argument of 128 KiB is too long to exec)
def test_an_argument_nested_too_deeply_is_a_usage_error(tmp_path: Path, depth: int) -> None:
    value = "[" * depth + "]" * depth
    code, _, stderr = run_cli("call", "demo.query_penguins", f"limit={value}", "--", *DEMO, cwd=tmp_path)
    line = one_line_error(stderr)
    assert code == 2 and "nested too deeply" in line


def test_one_bad_file_does_not_stop_load_from(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "Claude").mkdir(parents=True)
    deep = "[" * DEEP + "]" * DEEP
    (home / ".config" / "Claude" / "claude_desktop_config.json").write_text('{"mcpServers": ' + deep + "}")
    (home / ".claude.json").write_text('{"mcpServers": {"x": {"command": "python", "args": ' + deep + "}}}")
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"good": {"command": "python"}}}))
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {"fine": {"command": "python"}}}))
    env = {"HOME": str(home), "MCP_NOTEBOOK_CONFIG_DIR": str(tmp_path / "ours")}

    code, stdout, stderr = run_cli("--format", "json", "load", "--from", cwd=tmp_path, env=env)
    assert code == 0, stderr
    rows = {(row["client"], row["scope"]): row for row in json.loads(stdout)}
    assert "nested too deeply" in rows["claude-desktop", "user"]["error"]
    assert rows["cursor", "user"]["servers"] == 1 and rows["cursor", "user"]["error"] is None

    # Claude Code's user file is unreadable, its project file is fine: that one is listed.
    code, stdout, stderr = run_cli(
        "--format", "json", "load", "--from", "claude-code", "--dry-run", cwd=tmp_path, env=env
    )
    assert code == 0, stderr
    assert [row["name"] for row in json.loads(stdout)] == ["good"]
    assert "nested too deeply" in stderr and "skipped" in stderr


# -- l: timeouts are positive, finite numbers ----------------------------------------------------


@pytest.mark.parametrize("bad", ["nan", "-1", "0", "inf"])
def test_a_timeout_option_that_is_no_deadline_is_refused(tmp_path: Path, bad: str) -> None:
    for words in (
        ["--startup-timeout", bad, "list"],
        ["call", "demo.query_penguins", "--timeout", bad, "--", *DEMO],
        ["read", "demo", "penguins://about", f"--timeout={bad}", "--", *DEMO],
        ["add", "s", f"--timeout={bad}", "--", *DEMO],
    ):
        code, _, stderr = run_cli(*words, cwd=tmp_path, env={"MCP_NOTEBOOK_CONFIG_DIR": str(tmp_path / "ours")})
        line = one_line_error(stderr)
        assert code == 2 and "above 0" in line and bad in line, (words, line)


@pytest.mark.parametrize(
    "entry",
    [
        '"startup_timeout_sec": NaN',
        '"tool_timeout_sec": -5',
        '"startup_timeout_sec": Infinity',
        '"tool_timeout_sec": 1e999',
        '"timeout": NaN',
    ],
)
def test_a_timeout_in_a_file_that_is_no_deadline_is_refused(tmp_path: Path, entry: str) -> None:
    (tmp_path / "t.json").write_text('{"mcpServers": {"s": {"command": "python", "disabled": true, ' + entry + "}}}")
    code, _, stderr = run_cli("--config", str(tmp_path / "t.json"), "list", cwd=tmp_path)
    line = one_line_error(stderr)
    assert code == 2 and "must be a number above 0" in line and "timeout" in line, line
    with pytest.raises(ConfigError):
        load_config(tmp_path / "t.json")


def test_a_timeout_in_codex_toml_that_is_nan_is_skipped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(
        '[mcp_servers.bad]\ncommand = "python"\nstartup_timeout_sec = nan\n\n[mcp_servers.good]\ncommand = "python"\n'
    )
    code, stdout, stderr = run_cli("--format", "json", "load", "--from", "codex", "--dry-run", cwd=tmp_path,
                               env={"HOME": str(home)})  # fmt: skip
    assert code == 0, stderr
    assert [row["name"] for row in json.loads(stdout)] == ["good"]
    assert "startup_timeout_sec" in stderr and "skipped" in stderr


@pytest.mark.parametrize("bad", [math.nan, -1.0, 0, math.inf])
def test_the_python_api_refuses_a_timeout_that_is_no_deadline(bad: float) -> None:
    with pytest.raises(ConfigError, match="startup_timeout must be a number of seconds above 0"):
        ServerConfig(name="s", command="python", startup_timeout=bad)
    with pytest.raises(ConfigError, match="request_timeout must be a number of seconds above 0"):
        ServerConfig(name="s", command="python", request_timeout=bad)
    client = Client()
    try:
        with pytest.raises(ValueError, match="above 0"):
            client.add("s", command=sys.executable, args=["-m", "mcp_notebook.demo"], startup_timeout=bad)
    finally:
        client.close()


def test_a_client_s_timeout_settings_refuse_what_is_no_deadline() -> None:
    """client.settings' timeouts set directly are checked as the magics' are: NaN, 0, a
    negative or an infinite number is no deadline; None only where it means no limit."""
    client = Client()
    try:
        settings = client.settings
        for field in ("startup_timeout", "request_timeout", "task_timeout", "connect_timeout", "read_timeout"):
            before = getattr(settings, field)
            for bad in (math.nan, -1.0, 0, math.inf, "30", True):
                with pytest.raises(ValueError, match=rf"settings\.{field} must be a number of seconds above 0"):
                    setattr(settings, field, bad)
                assert getattr(settings, field) == before
            setattr(settings, field, 12.5)
            assert getattr(settings, field) == 12.5
        for field in ("request_timeout", "task_timeout", "read_timeout"):  # None: no limit
            setattr(settings, field, None)
            assert getattr(settings, field) is None
        for field in ("startup_timeout", "connect_timeout"):
            with pytest.raises(ValueError, match=rf"settings\.{field} must be"):
                setattr(settings, field, None)
        with pytest.raises(ValueError, match=r"settings\.startup_timeout must be"):
            Settings(startup_timeout=math.nan)
    finally:
        client.close()


def test_a_call_refuses_a_timeout_that_is_no_deadline() -> None:
    client = Client()
    try:
        server = client.add("demo", command=DEMO[0], args=DEMO[1:])
        for bad in (math.nan, -1.0, 0):
            with pytest.raises(ValueError, match="timeout must be a number of seconds above 0"):
                server.call_tool("query_penguins", {"limit": 1}, timeout=bad)
            with pytest.raises(ValueError, match="timeout must be a number of seconds above 0"):
                server.read_resource("penguins://about", timeout=bad)
        # A call needs no deadline: infinity is no limit, as None is (it used to overflow a wait).
        for limit in (30, math.inf, None):
            assert server.call_tool("query_penguins", {"limit": 1}, timeout=limit).structured["count"] > 0
    finally:
        client.close()


def test_the_magics_refuse_a_timeout_that_is_no_deadline() -> None:
    with extension_loaded() as ip:
        ip.user_ns["rows"] = [{"limit": 1}]
        for cell in (
            "%mcp call demo.query_penguins --timeout nan",
            "%mcp read demo penguins://about --timeout -1",
            f"%mcp add s --timeout nan -- {' '.join(DEMO)}",
            "%mcp map demo.query_penguins $rows --timeout inf",
        ):
            with pytest.raises(UsageError, match="above 0"):
                run(ip, cell)


def test_the_magics_timeout_settings_refuse_what_is_no_deadline() -> None:
    with extension_loaded() as ip:
        magics = ip.find_magic("mcp").__self__
        for name in ("startup_timeout", "request_timeout", "task_timeout", "connect_timeout", "read_timeout"):
            before = getattr(magics, name)
            for bad in (math.nan, -1.0, math.inf, 0):
                with pytest.raises(TraitError, match=rf"^MCPMagics\.{name} must be a number of seconds above 0"):
                    setattr(magics, name, bad)
            run(ip, f"%config MCPMagics.{name} = float('nan')")  # %config says the same in one line
            assert getattr(magics, name) == before
            run(ip, f"%config MCPMagics.{name} = {before!r}")  # (the shell's config keeps what %config set)
        run(ip, "%config MCPMagics.startup_timeout = 12")
        run(ip, "%config MCPMagics.request_timeout = None")
        assert magics.client.settings.startup_timeout == 12 and magics.client.settings.request_timeout is None
        run(ip, "%config MCPMagics.startup_timeout = 30.0")
        run(ip, "%config MCPMagics.request_timeout = 60.0")


def test_the_magics_refuse_a_value_nested_too_deeply() -> None:
    deep = "[" * RECURSES + "]" * RECURSES
    with extension_loaded() as ip:
        run(ip, f"%mcp add demo -- {' '.join(DEMO)}")
        try:
            with pytest.raises(UsageError, match=r"nested too deeply \(over 100 levels"):
                run(ip, f"%mcp call demo.query_penguins limit={deep}")
            with pytest.raises(UsageError, match=r"nested too deeply \(over 100 levels"):
                run(ip, f'%%mcp_call demo.query_penguins\n{{"limit": {deep}}}')
            assert run(ip, "%mcp call demo.query_penguins limit=1").structured["count"] > 0
        finally:
            run(ip, "%mcp remove demo")
