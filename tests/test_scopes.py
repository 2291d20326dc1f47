"""Servers that outlive the kernel: %mcp add --save, %mcp load from every scope, where each
server came from, %mcp remove --save; and `python` as a server's command being the kernel's
own Python. Against the demo server and server-everything, in IPython and in a real kernel."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from support.kernels import Kernel, text_of
from support.processes import free_port, running
from support.shells import in_notebook_folder, line, run

from mcp_notebook import get_client
from mcp_notebook.core.config.scopes import CONFIG_DIR_ENV, user_file

DEMO = "-m mcp_notebook.demo"


@pytest.fixture
def ip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    """IPython with the extension, working in a fresh notebook folder, with a private user
    config folder; the servers a test adds are removed after it."""
    with in_notebook_folder(tmp_path / "notebooks", tmp_path / "user", monkeypatch) as shell:
        yield shell


def lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.strip().splitlines()


def sources(shell: InteractiveShell) -> dict[str, str]:
    return dict(line(shell, "list").set_index("name")["source"])


def test_saved_server_outlives_the_kernel(ip: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    project = Path.cwd() / ".mcp.json"
    run(ip, f"%mcp add demo --save -- python {DEMO}")  # `python`: this Python, here and when loaded
    assert lines(capsys) == [
        "✓ demo: penguins 1.0.0 · protocol 2026-07-28 · 7 tools, 4 resources, 1 prompt",
        f"saved demo to {project} (project scope)",
    ]
    assert json.loads(project.read_text()) == {
        "mcpServers": {"demo": {"type": "stdio", "command": "python", "args": ["-m", "mcp_notebook.demo"]}}
    }
    assert sources(ip) == {"demo": "project"}
    run(ip, "%mcp remove demo")  # from this kernel only: as a new kernel starts
    assert "demo" in json.loads(project.read_text())["mcpServers"]
    capsys.readouterr()
    run(ip, "%mcp load")
    assert lines(capsys) == ["✓ demo: penguins 1.0.0 · protocol 2026-07-28 · 7 tools, 4 resources, 1 prompt"]
    assert line(ip, "call demo.query_penguins species=Gentoo limit=1").structured["count"] == 124
    assert sources(ip) == {"demo": "project"}
    run(ip, "%mcp remove demo --save")
    assert lines(capsys) == [f"removed demo from this kernel and from {project} (project scope)"]
    assert json.loads(project.read_text()) == {"mcpServers": {}}
    run(ip, "%mcp load")
    assert lines(capsys) == [f"no saved servers; looked in {user_file()} (user and local scopes) and {project} "
                             "(project scope)"]  # fmt: skip


def test_scopes_take_local_over_project_over_user(
    ip: InteractiveShell, capsys: pytest.CaptureFixture[str], everything_cmd: tuple[str, list[str]]
) -> None:
    node, args = everything_cmd
    everything = f"{node} {' '.join(args)}"
    run(ip, f"%mcp add shared --save user -- {everything}")
    run(ip, f"%mcp add shared --save local --env WHO=local -- {everything}")
    run(ip, f"%mcp add mine --save local -- {everything}")
    run(ip, f"%mcp add scratch -- {everything}")
    assert sources(ip) == {"shared": "local", "mine": "local", "scratch": "kernel"}
    data = json.loads(user_file().read_text())
    assert set(data["mcpServers"]) == {"shared"}
    assert set(data["projects"][str(Path.cwd())]["mcpServers"]) == {"shared", "mine"}
    assert not (Path.cwd() / ".mcp.json").exists()  # local and user stay out of the project
    with pytest.raises(UsageError, match=r"scratch was added in this kernel, not saved; .* --save project"):
        run(ip, "%mcp remove scratch --save")
    for name in ("shared", "mine", "scratch"):
        run(ip, f"%mcp remove {name}")
    run(ip, "%mcp load")
    assert sources(ip) == {"shared": "local", "mine": "local"}
    assert get_client()["shared"].config.env == {"WHO": "local"}
    capsys.readouterr()
    run(ip, "%mcp remove shared --save local")  # the user scope's stays
    assert lines(capsys) == [f"removed shared from this kernel and from {user_file()} (local scope)"]
    run(ip, "%mcp remove mine")
    run(ip, "%mcp load")
    assert sources(ip) == {"shared": "user", "mine": "local"}
    run(ip, "%mcp remove shared --save user")
    with pytest.raises(UsageError, match=r"no server 'shared' saved there \(user scope\)"):
        run(ip, "%mcp remove shared --save user")
    with pytest.raises(UsageError, match=r"unknown scope 'team'; use user, project or local"):
        run(ip, "%mcp remove mine --save team")
    with pytest.raises(UsageError, match=r"argument --save: invalid choice: 'team'"):
        run(ip, f"%mcp add other --save team -- {everything}")


def test_saved_secrets_are_references(
    ip: InteractiveShell, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    token, key, env_secret = "tok-" + "7" * 20, "key-" + "8" * 20, "env-" + "9" * 20
    monkeypatch.setenv("DEMO_TOKEN", token)
    monkeypatch.delenv("REMOTE_X_API_KEY", raising=False)
    monkeypatch.delenv("API_KEY", raising=False)
    port = free_port()
    with running([sys.executable, "-m", "mcp_notebook.demo", "--http", str(port)], port):
        url = f"http://127.0.0.1:{port}/mcp"
        run(ip, f"%mcp add remote {url} --bearer-env DEMO_TOKEN --header X-Api-Key={key} --save user")
        run(ip, f"%mcp add local --env API_KEY={env_secret} --env LOG=debug --save user -- python {DEMO}")
        out = lines(capsys)
        assert out[1:3] == [
            f"saved remote to {user_file()} (user scope)",
            "note: set REMOTE_X_API_KEY before %mcp load: header X-Api-Key of remote is saved as"
            " ${REMOTE_X_API_KEY}, not its secret value",
        ]
        assert out[-2:] == [
            f"saved local to {user_file()} (user scope)",
            "note: set API_KEY before %mcp load: env API_KEY of local is saved as ${API_KEY}, not its secret value",
        ]
        text = user_file().read_text()
        assert token not in text and key not in text and env_secret not in text
        servers = json.loads(text)["mcpServers"]
        assert servers["remote"] == {
            "type": "http",  # what the connection found (auto: Streamable HTTP, else SSE)
            "url": url,
            "headers": {"X-Api-Key": "${REMOTE_X_API_KEY}", "Authorization": "Bearer ${DEMO_TOKEN}"},
        }
        assert servers["local"]["env"] == {"API_KEY": "${API_KEY}", "LOG": "debug"}
        run(ip, "%mcp remove remote")
        run(ip, "%mcp remove local")
        with pytest.raises(UsageError, match=r"variable \$\{REMOTE_X_API_KEY\} is not set"):
            run(ip, "%mcp load")
        monkeypatch.setenv("REMOTE_X_API_KEY", key)
        monkeypatch.setenv("API_KEY", env_secret)
        run(ip, "%mcp load")
        remote = get_client()["remote"]
        assert remote.config.headers == {"X-Api-Key": key, "Authorization": f"Bearer {token}"}
        assert remote.call_tool("query_penguins", {"limit": 1}).structured["count"] == 344
        assert get_client()["local"].config.env == {"API_KEY": env_secret, "LOG": "debug"}


def test_load_shows_disabled_servers_and_unsupported_keys(
    ip: InteractiveShell, capsys: pytest.CaptureFixture[str], everything_cmd: tuple[str, list[str]]
) -> None:
    node, args = everything_cmd
    project = Path.cwd() / ".mcp.json"
    project.write_text(json.dumps({"mcpServers": {
        "off": {"command": "python", "args": ["-m", "mcp_notebook.demo"], "disabled": True, "autoApprove": ["x"]},
        "on": {"command": node, "args": args, "timeout": 60},
    }}))  # fmt: skip
    run(ip, "%mcp load --trust")  # a file written here: trusted (test_trust.py asks first)
    out = lines(capsys)
    assert out[:2] == [
        f"⚠ {project}: mcpServers.on.timeout: 60 is in milliseconds, and below 1000 it is ignored; write 60000 for "
        "60 s",
        "○ off: disabled (project); %mcp restart off connects it",
    ]
    assert out[2].startswith("✓ on: mcp-servers/everything") and len(out) == 3
    assert get_client()["off"].config.allowed_tools == ["x"]  # Cline's autoApprove: tools that never ask
    frame = line(ip, "list").set_index("name")
    assert frame.loc["off", "status"] == "disabled" and frame.loc["on", "status"] == "connected"
    with pytest.raises(UsageError, match=r"server 'off' is not connected \(disabled\); %mcp restart off"):
        run(ip, "%mcp tools off")
    run(ip, "%mcp restart off")
    assert lines(capsys)[-1].startswith("✓ off: penguins")
    status = repr(line(ip, "status off"))
    assert f"python → {sys.executable} -m mcp_notebook.demo" in status and "project" in status


def _path_without(folder: Path) -> str:
    return os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p and Path(p) != folder)


@pytest.mark.kernel
def test_python_is_the_kernels_python_when_its_venv_is_not_on_path(tmp_path: Path) -> None:
    """A kernel registered from a venv that is not on PATH (what `python -m ipykernel install`
    leaves): `python` in a server's command still runs the kernel's own Python."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    (folder / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"fromfile": {"command": "python3", "args": ["-m", "mcp_notebook.demo"]}}})
    )
    env = {"PATH": _path_without(Path(sys.executable).parent), CONFIG_DIR_ENV: str(tmp_path / "user")}
    kernel = Kernel(cwd=str(folder), extra_env=env)
    try:
        kernel.run("%load_ext mcp_notebook")
        added = text_of(kernel.run(f"%mcp add demo -- python {DEMO}"))
        assert "✓ demo: penguins 1.0.0" in added, added
        status = text_of(kernel.run("%mcp status demo"))
        assert f"python → {sys.executable} -m mcp_notebook.demo" in status
        loaded = text_of(kernel.run("%mcp load --trust"))
        assert "✓ fromfile: penguins 1.0.0" in loaded, loaded
    finally:
        kernel.close()


def test_two_secrets_of_one_name_get_a_variable_each() -> None:
    """Saved files and exported scripts name a second secret under a taken name alike (one
    rule, entries.numbered_name): ``_2``, ``_3``…; the same value keeps its variable."""
    from mcp_notebook.core.config.entries import config_entry, numbered_name
    from mcp_notebook.core.config.servers import ServerConfig

    first, second = "a" * 24, "b" * 24
    config = ServerConfig("demo", command="python", args=["--token", first, "--token", second, "--token", first])
    entry, _ = config_entry(config)
    assert entry["args"] == ["--token", "${DEMO_TOKEN}", "--token", "${DEMO_TOKEN_2}", "--token", "${DEMO_TOKEN}"]
    held = {"X": "a", "X_2": "b"}
    assert [numbered_name("X", held, v) for v in ("a", "b", "c")] == ["X", "X_2", "X_3"]
