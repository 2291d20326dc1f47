"""The ``mcp-notebook`` command, run as a person or a CI job runs it: a process, its stdout
parsed, its stderr read, its exit status checked. Against the demo (stdio and Streamable
HTTP) and servers that misbehave; the other peers (server-everything, a terminal login, the
MCP Inspector's command line) are in test_cli_peers.py."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from support.cli import DEMO, cli, data
from support.peers import EVERYTHING, SERVERS, node
from support.processes import free_port

SCRIPT = Path(sys.executable).parent / "mcp-notebook"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_each_subcommand_against_the_demo(transport: str, demo_http: str, tmp_path: Path) -> None:
    given = ["--", *DEMO] if transport == "stdio" else ["--url", demo_http]

    def run(*args: str) -> object:
        return data(*args, *given, cwd=tmp_path)

    tools = run("tools")
    assert isinstance(tools, list)
    assert {t["name"] for t in tools} >= {"query_penguins", "summarize_penguins", "plot_penguins"}
    assert {t["server"] for t in tools} == {"demo" if transport == "stdio" else "127-0-0-1"}
    assert "penguins://data.csv" in [r["uri"] for r in run("resources")]  # type: ignore[attr-defined]
    assert [t["uri_template"] for t in run("templates")] == ["penguins://species/{species}.csv"]  # type: ignore[attr-defined]
    assert [p["name"] for p in run("prompts")] == ["explore"]  # type: ignore[attr-defined]
    # A subcommand names the server given on the line: it takes that name.
    result = run("call", "penguins.query_penguins", "species=Gentoo", "limit=3")
    assert result["structuredContent"]["count"] == 124 and len(result["structuredContent"]["rows"]) == 3  # type: ignore[index]
    read = run("read", "penguins", "penguins://species/Adelie.csv")
    assert read["contents"][0]["text"].startswith("species,island")  # type: ignore[index]
    prompt = run("prompt", "penguins.explore", "question=Which island?", "species=Gentoo")
    assert "Which island?" in json.dumps(prompt)
    status = run("status", "penguins")
    assert status["status"] == "connected" and status["server"] == "penguins"  # type: ignore[index]
    assert status["transport"] == ("stdio" if transport == "stdio" else "auto")  # type: ignore[index]
    assert status["source"] == "command line"  # type: ignore[index]
    text, notes = cli("call", "penguins.summarize_penguins", "measure=body_mass_g", "by=species", *given, cwd=tmp_path)
    assert '"Gentoo"' in text and not notes  # the value on stdout, and nothing else to say
    out, notes = cli("snapshot", "penguins", str(tmp_path / "demo.json"), *given, cwd=tmp_path)
    assert not out and "saved penguins's listings to" in notes and "7 tools" in notes
    assert json.loads((tmp_path / "demo.json").read_text())["serverInfo"]["name"] == "penguins"


def test_words_are_data_not_code(tmp_path: Path) -> None:
    """A {…} or $name from a shell script's data is text: never run, never looked up."""
    given = ["--", node(), str(EVERYTHING), "stdio"]
    canary = tmp_path / "ran"
    word = "{open(" + repr(str(canary)) + ", 'w').write('x')}"
    out, _ = cli("call", "everything.echo", f"message={word}", *given, cwd=tmp_path)
    assert out == f"Echo: {word}\n" and not canary.exists()
    out, _ = cli("call", "everything.echo", "message=$price", *given, cwd=tmp_path)
    assert out == "Echo: $price\n"


def test_a_tool_error_in_csv_still_says_what_went_wrong(tmp_path: Path) -> None:
    out, _ = cli("--format", "csv", "call", "demo.summarize_penguins", "measure=nope", "--no-validate",
                 "--", *DEMO, cwd=tmp_path, code=1)  # fmt: skip
    assert out.startswith("Tool error:") and "measure" in out


def test_the_given_server_takes_the_first_name_even_a_saved_one(cli_home: dict[str, str], tmp_path: Path) -> None:
    cli("add", "demo", "--save", "user", "--", *DEMO, cwd=tmp_path, env=cli_home)
    hostile = ["--", sys.executable, str(SERVERS / "hostile_text.py")]
    names = [t["name"] for t in data("tools", "demo", *hostile, cwd=tmp_path, env=cli_home)]  # type: ignore[index]
    assert "tool_error" in names and "query_penguins" not in names
    _, notes = cli("remove", "demo", cwd=tmp_path, env=cli_home, code=2)
    assert "on the command line it deletes a saved server: add --save" in notes
    _, notes = cli("remove", "demo", "--save", cwd=tmp_path, env=cli_home)  # the scope it was saved in
    assert "removed demo from" in notes and "(user scope)" in notes


def test_a_pipe_closed_early_is_no_error(tmp_path: Path) -> None:
    done = subprocess.run(f"{sys.executable} -m mcp_notebook --help | head -1", shell=True, capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)  # fmt: skip
    assert done.stdout.startswith("usage: mcp-notebook") and done.stderr == ""


def test_json_stays_json_whatever_the_server_sent() -> None:
    from mcp_notebook.cli.output import output
    from mcp_notebook.core.types import CallResult

    raw = {"content": [], "structuredContent": {"v": float("nan"), "w": [float("inf"), 1.5], "x": "\x1b[2J"}}
    shown = output(CallResult.from_raw("s", "t", raw), "json", terminal=True)
    assert shown is not None and shown.data is None
    text = shown.text
    assert "\x1b" not in text
    assert json.loads(text)["structuredContent"] == {"v": None, "w": [None, 1.5], "x": "\x1b[2J"}


def test_progress_and_log_lines_go_to_stderr(tmp_path: Path) -> None:
    out, notes = cli("call", "demo.fit_model", "epochs=2", "seconds_per_epoch=0", "--", *DEMO, cwd=tmp_path)
    assert out == "fitted in 2 epochs: accuracy 0.97 (pretend)\n"
    lines = notes.splitlines()
    assert "demo.fit_model: 2/2 epoch 2/2" in lines  # the last always shows
    assert "demo [info] epoch 1: loss 0.500" in lines and "demo [info] epoch 2: loss 0.333" in lines


def test_a_saved_server_by_name_in_every_format(cli_home: dict[str, str], tmp_path: Path) -> None:
    """mcp-notebook add --save, then the server by its name alone: from the user scope, as
    %mcp load finds it in a notebook (and a notebook's %mcp add --save is found here)."""
    _, notes = cli("add", "demo", "--save", "user", "--", *DEMO, cwd=tmp_path, env=cli_home)
    assert "✓ demo: penguins" in notes and "saved demo to" in notes and "(user scope)" in notes
    listed = data("list", cwd=tmp_path, env=cli_home)
    assert [(s["name"], s["source"], s["status"]) for s in listed] == [("demo", "user", "connected")]  # type: ignore[index]
    csv, _ = cli(
        "call", "demo.query_penguins", "species=Gentoo", "limit=3", "--format", "csv", cwd=tmp_path, env=cli_home
    )
    rows = pd.read_csv(io.StringIO(csv))
    assert list(rows["species"]) == ["Gentoo"] * 3 and "body_mass_g" in rows.columns
    markdown, _ = cli("tools", "demo", "--format", "markdown", cwd=tmp_path, env=cli_home)
    head, rule, *lines = markdown.splitlines()
    assert head.startswith("| server | name | title |") and set(rule) == {"|", "-"} and len(lines) == 7
    assert "<NA>" not in markdown and "nan" not in markdown  # a missing value is an empty cell
    text, _ = cli("templates", "demo", cwd=tmp_path, env=cli_home)
    assert text.splitlines()[0].split() == ["server", "uri_template", "name", "title", "mime_type", "description"]
    assert text.splitlines()[1].split()[:2] == ["demo", "penguins://species/{species}.csv"]
    # A project's .mcp.json is read too, once the folder is trusted (test_trust.py), and a
    # name there then takes project over user, saying so.
    project = {"command": sys.executable, "args": ["-m", "mcp_notebook.demo"], "disabledTools": ["plot_*"]}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": project}}))
    out, notes = cli("--trust", "--format", "json", "tools", "demo", cwd=tmp_path, env=cli_home)
    names = [t["name"] for t in json.loads(out)]
    assert "plot_penguins" not in names and "query_penguins" in names
    assert "project server 'demo' replaces your user server of that name" in notes
    _, notes = cli("remove", "demo", "--save", "user", cwd=tmp_path, env=cli_home)
    assert "removed demo from" in notes
    assert not json.loads((tmp_path / "config" / "mcp.json").read_text())["mcpServers"]


def test_every_exit_status_from_a_real_case(demo_oauth: str, tmp_path: Path) -> None:
    """0 ok, 1 the tool's error, 2 usage, 3 a login nobody can give, 4 no connection, 5 timed out."""
    demo = ["--", *DEMO]
    out, _ = cli("call", "demo.summarize_penguins", "measure=nope", "--no-validate", *demo, cwd=tmp_path, code=1)
    assert out.startswith("Tool error:")  # what the tool said is the value: on stdout
    _, notes = cli("call", "demo.nope", *demo, cwd=tmp_path, code=2)
    assert notes == "mcp-notebook: UnknownTool: server 'demo' has no tool 'nope'; list_tools()\n"
    _, notes = cli("call", "demo.query_penguins", "limit=many", *demo, cwd=tmp_path, code=2)
    assert "limit: 'many' is not of type 'integer'" in notes
    _, notes = cli("tools", "--format", "xml", cwd=tmp_path, code=2)
    assert "argument --format: invalid choice: 'xml'" in notes
    _, notes = cli("map", "demo.query_penguins", "$rows", cwd=tmp_path, code=2)
    assert "no subcommand 'map' (it works in a notebook: %mcp map)" in notes
    _, notes = cli("tools", "nope", cwd=tmp_path, code=2)
    assert "no saved server named 'nope'; give its command after --" in notes
    assert "mcp-notebook add nope --save -- COMMAND" in notes
    _, notes = cli("--bogus", "tools", cwd=tmp_path, code=2)
    assert "unknown option '--bogus'" in notes
    _, notes = cli("tools", "--url", "http://[::1", cwd=tmp_path, code=2)
    assert "is not a valid URL" in notes and "Traceback" not in notes
    _, notes = cli("tools", "--url", demo_oauth, "--no-browser", cwd=tmp_path, code=3)
    assert notes.startswith("mcp-notebook: LoginRequired:") and "log in" in notes
    _, notes = cli("tools", "--", sys.executable, "-m", "no_such_server", cwd=tmp_path, code=4)
    assert "StartupError" in notes and "No module named no_such_server" in notes
    _, notes = cli("tools", "--url", f"http://127.0.0.1:{free_port()}/mcp", cwd=tmp_path, code=4)
    assert "NotSent" in notes or "TransportError" in notes or "StartupError" in notes
    _, notes = cli("call", "demo.fit_model", "epochs=3", "seconds_per_epoch=20", "--timeout", "1", *demo,
                   cwd=tmp_path, code=5)  # fmt: skip
    assert "RequestTimeout" in notes and "got no answer in 1 s" in notes
    _, notes = cli("call", "demo.delete_penguins", "species=Adelie", *demo, cwd=tmp_path, code=3)
    assert "ToolDenied" in notes  # destructive: asked on a terminal, refused without one (nothing sent)
    help_text, _ = cli("--help", cwd=tmp_path)
    for code in range(6):
        assert f"\n  {code}  " in help_text  # each status explained in --help


def test_what_a_server_sends_cannot_drive_the_terminal(tmp_path: Path) -> None:
    given = ["--", sys.executable, str(SERVERS / "hostile_text.py")]
    for fmt in ("text", "markdown", "json"):
        out, notes = cli("tools", "--format", fmt, *given, cwd=tmp_path)
        for control in ("\x1b", "\x9b", "\u202e", "\x07"):
            assert control not in out and control not in notes, (fmt, control)
    result = data("call", "hostile_text.text", *given, cwd=tmp_path)
    assert "\x1b[2J" in result["content"][0]["text"]  # type: ignore[index]  # the data as sent (JSON escapes it)
    out, notes = cli("call", "hostile_text.tool_error", *given, cwd=tmp_path, code=1)
    assert "\x1b" not in out + notes and "\\x1b" in out  # shown as an escape


def test_a_bearer_token_never_shows(demo_http: str, tmp_path: Path) -> None:
    """Given with --bearer-env, as a header, or in the URL: in no output, value or error."""
    userinfo = demo_http.replace("http://", "http://user:pw-5e6f7a8b@")
    out, notes = cli("--format", "csv", "tools", "--url", userinfo, cwd=tmp_path)
    assert "pw-5e6f7a8b" not in out + notes and out.splitlines()[1].startswith("127-0-0-1,")
    _, notes = cli("tools", "--url", demo_http, "--header", "Authorization: Bearer tok-9f8e7d6c5b4a", cwd=tmp_path,
                   code=2)  # fmt: skip
    assert "expects K=V" in notes and "tok-9f8e7d6c5b4a" not in notes
    env = {**os.environ, "DEMO_TOKEN": "tok-9f8e7d6c5b4a"}
    outputs = []
    for args, fmt, auth in (
        (["status", "d"], "text", ["--bearer-env", "DEMO_TOKEN"]),
        (["status", "d"], "json", ["--header", "Authorization=Bearer tok-9f8e7d6c5b4a"]),
        (["call", "d.nope"], "text", ["--bearer-env", "DEMO_TOKEN"]),
    ):
        done = subprocess.run([sys.executable, "-m", "mcp_notebook", *args, "--format", fmt, "--url", demo_http,
                               *auth], env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)  # fmt: skip
        outputs.append(done.stdout + done.stderr)
    assert all("tok-9f8e7d6c5b4a" not in o for o in outputs), outputs
    assert "connected" in outputs[0] and json.loads(outputs[1])["status"] == "connected"
    assert "no tool 'nope'" in outputs[2]


def test_a_call_imports_neither_ipython_nor_pandas(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom mcp_notebook.cli import main\n"
        f"words = ['call', 'demo.query_penguins', 'limit=1', '--', {sys.executable!r}, '-m', 'mcp_notebook.demo']\n"
        "status = main(words)\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('IPython', 'ipywidgets', 'pandas'))\n"
        "print('STATUS', status, 'HEAVY', heavy, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "STATUS 0 HEAVY []" in done.stderr, done.stderr
    assert json.loads(done.stdout)["count"] == 344


def test_the_console_script_and_help(tmp_path: Path) -> None:
    done = subprocess.run([str(SCRIPT), "call", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("mcp-notebook call SERVER.TOOL")
    assert "%mcp" not in done.stdout
    done = subprocess.run([str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "usage: mcp-notebook [OPTIONS] SUBCOMMAND" in done.stdout


def test_a_snapshot_compared_on_the_command_line(tmp_path: Path) -> None:
    """The demo's next version (one tool renamed, one argument made required): exactly those,
    breaking, whether from a snapshot or two live servers."""
    snapshot = tmp_path / "demo-1.0.json"
    cli("snapshot", "demo", str(snapshot), "--", *DEMO, cwd=tmp_path)
    changed = ["--", sys.executable, str(SERVERS / "demo_changed.py"), "--listing"]
    rows = data("diff", str(snapshot), "next", *changed, cwd=tmp_path)
    assert [(r["name"], r["change"], r["path"], r["breaking"]) for r in rows] == [  # type: ignore[attr-defined]
        ("summarize_penguins → summarise_penguins", "renamed", None, True),
        ("query_penguins", "changed", "inputSchema.required", True),
    ]
    _, notes = cli("diff", str(snapshot), "same", "--", *DEMO, cwd=tmp_path)
    assert "no differences between" in notes
