"""The %mcp magics in a real IPython shell, against the demo server and server-everything."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from support.peers import EVERYTHING, ROOT, SERVERS, faulty_cmd, node
from support.shells import line, run

from mcp_notebook import CallResult, PromptResult, ReadResult, RPCError, ServerExited
from mcp_notebook.commands.tables import (
    PROMPT_COLUMNS,
    RESOURCE_COLUMNS,
    SERVER_COLUMNS,
    TEMPLATE_COLUMNS,
    TOOL_COLUMNS,
)
from mcp_notebook.notebook.completion import candidates


@pytest.fixture(scope="module")
def ip(everything_cmd) -> Iterator[InteractiveShell]:  # type: ignore[no-untyped-def]
    shell = InteractiveShell.instance()
    run(shell, "%load_ext mcp_notebook")
    node, args = everything_cmd
    run(shell, f"%mcp add demo -- {sys.executable} -m mcp_notebook.demo")
    run(shell, f"%mcp add everything -- {node} {' '.join(args)}")
    yield shell
    run(shell, "%mcp remove demo")
    run(shell, "%mcp remove everything")
    run(shell, "%unload_ext mcp_notebook")


def test_add_reports_one_line(ip: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    run(ip, f"%mcp add demo2 -- {sys.executable} -m mcp_notebook.demo")
    out = capsys.readouterr().out.strip()
    assert out == "✓ demo2: penguins 1.0.0 · protocol 2026-07-28 · 7 tools, 4 resources, 1 prompt"
    run(ip, "%mcp remove demo2")


def test_add_options(ip: InteractiveShell, tmp_path: Any) -> None:
    run(ip, f"%mcp add envy --env GREETING=hi --cwd {tmp_path} --timeout 20 -- {sys.executable} -m mcp_server_time")
    assert ip.user_ns is not None
    server = line(ip, "status envy").server
    assert server.config.env == {"GREETING": "hi"} and server.config.cwd == str(tmp_path)
    run(ip, "%mcp remove envy")


def test_list(ip: InteractiveShell) -> None:
    frame = run(ip, "%mcp list")
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == SERVER_COLUMNS
    demo = frame.set_index("name").loc["demo"]
    assert demo["status"] == "connected" and demo["server"] == "penguins" and demo["tools"] == 7


def test_tools(ip: InteractiveShell) -> None:
    assert run(ip, "tools = %mcp tools") is None  # assigned, not shown
    frame = ip.user_ns["tools"]
    assert list(frame.columns) == TOOL_COLUMNS
    assert {"demo", "everything"} == set(frame["server"])
    query = frame.set_index("qualified_name").loc["mcp__demo__query_penguins"]
    assert query["read_only"] == True and query["destructive"] is pd.NA  # noqa: E712 (a pandas boolean)
    assert "limit" in query["arguments"]
    delete = frame.set_index("name").loc["delete_penguins"]
    assert delete["destructive"] == True and delete["arguments"] == "species*"  # noqa: E712
    searched = run(ip, "%mcp tools everything --search sum")
    assert list(searched["name"]) == ["get-sum"]
    assert list(run(ip, "%mcp tools demo --search '*_penguins'")["name"]) == [
        "plot_penguins", "query_penguins", "summarize_penguins", "delete_penguins",
    ]  # fmt: skip
    # An argument's name or description counts: min_body_mass_g, "At most this many rows".
    assert list(run(ip, "%mcp tools demo --search body")["name"]) == ["query_penguins"]
    assert "query_penguins" in list(run(ip, "%mcp tools demo --search 'many rows'")["name"])


def test_tools_names_do_not_depend_on_what_was_added_first(ip: InteractiveShell) -> None:
    """Server "h_" names its tool "t", added before "h" whose tool is "_t": "mcp__h___t"
    stays h's, in the table and for calls by qualified name."""
    from mcp_notebook import get_client

    colliding = SERVERS / "colliding.py"
    run(ip, f"%mcp add h_ -- {sys.executable} {colliding} hostile t")
    run(ip, f"%mcp add h -- {sys.executable} {colliding} victim _t")
    try:
        frame = run(ip, "%mcp tools").set_index(["server", "name"])["qualified_name"]
        assert frame[("h", "_t")] == "mcp__h___t"
        assert frame[("h_", "t")] != "mcp__h___t"
        assert get_client().call_tool("mcp__h___t").text == "victim:_t"
        assert get_client().call_tool(frame[("h_", "t")]).text == "hostile:t"
    finally:
        run(ip, "%mcp remove h_")
        run(ip, "%mcp remove h")


def test_resources_templates_prompts(ip: InteractiveShell) -> None:
    resources = run(ip, "%mcp resources demo")
    assert list(resources.columns) == RESOURCE_COLUMNS
    assert "penguins://data.csv" in set(resources["uri"])
    templates = run(ip, "%mcp templates demo")
    assert list(templates.columns) == TEMPLATE_COLUMNS
    assert list(templates["uri_template"]) == ["penguins://species/{species}.csv"]
    prompts = run(ip, "%mcp prompts")
    assert list(prompts.columns) == PROMPT_COLUMNS
    explore = prompts.set_index("name").loc["explore"]
    assert explore["server"] == "demo" and explore["arguments"] == "question*, species"


def test_read(ip: InteractiveShell) -> None:
    result = run(ip, "%mcp read demo penguins://data.csv")
    assert isinstance(result, ReadResult) and result.mime_type == "text/csv"
    frame = result.to_frame()
    assert frame.shape == (344, 8) and set(frame["species"]) == {"Adelie", "Chinstrap", "Gentoo"}
    assert run(ip, "%mcp read demo penguins://data.json").to_frame().shape == (344, 8)
    gentoo = run(ip, "%mcp read demo penguins://species/gentoo.csv").to_frame()
    assert set(gentoo["species"]) == {"Gentoo"}


def test_read_template_filled_from_values(ip: InteractiveShell) -> None:
    ip.user_ns["which"] = "Chinstrap"
    template = "penguins://species/{species}.csv"
    gentoo = run(ip, f"%mcp read demo {template} species=Gentoo")
    assert gentoo.uri == "penguins://species/Gentoo.csv"
    assert set(gentoo.to_frame()["species"]) == {"Gentoo"}
    assert set(run(ip, f"%mcp read demo {template} species=$which --refresh").to_frame()["species"]) == {"Chinstrap"}


def test_call_values(ip: InteractiveShell) -> None:
    result = run(ip, "%mcp call demo.query_penguins species=Gentoo limit=3")
    assert isinstance(result, CallResult)
    assert result.structured["count"] == 124 and len(result.structured["rows"]) == 3
    frame = result.to_frame()
    assert frame.shape == (3, 8) and set(frame["species"]) == {"Gentoo"}
    ip.user_ns["who"] = "Adelie"
    ip.user_ns["n"] = 2
    typed = run(ip, "%mcp call demo.query_penguins species=$who limit={n * 2}")
    assert typed.structured["count"] == 152 and len(typed.structured["rows"]) == 4
    # A string parameter keeps the text typed, even when it looks like JSON.
    assert run(ip, "%mcp call everything.echo message=007").text == "Echo: 007"
    assert run(ip, '%mcp call everything.echo message="two words"').text == "Echo: two words"
    assert run(ip, "%mcp call everything.get-sum a=2 b=40").text.endswith("42.")


def test_cell_magic(ip: InteractiveShell) -> None:
    result = run(ip, '%%mcp_call demo.query_penguins -o out\n{"species": "Chinstrap", "limit": 2}')
    assert ip.user_ns["out"] is result and result.structured["count"] == 68
    ip.user_ns["wanted"] = "Dream"
    python_body = run(ip, "%%mcp_call demo.query_penguins\ndict(island=wanted, limit=1)")
    assert python_body.structured["rows"][0]["island"] == "Dream"
    with pytest.raises(UsageError, match="neither JSON nor a Python expression"):
        run(ip, "%%mcp_call demo.query_penguins\n{species: ")
    with pytest.raises(UsageError, match="must be an object of arguments, not list"):
        run(ip, "%%mcp_call demo.query_penguins\n[1, 2]")


def test_prompt(ip: InteractiveShell) -> None:
    result = run(ip, '%mcp prompt demo.explore question="which is heaviest?" species=Gentoo')
    assert isinstance(result, PromptResult)
    assert "which is heaviest?" in result.text and "Gentoo" in result.text


def test_status_and_logs(ip: InteractiveShell) -> None:
    status = run(ip, "%mcp status everything")
    assert "2025-11-25" in repr(status) and "capabilities" in status._repr_html_()
    run(ip, "%mcp loglevel everything debug")
    logs = run(ip, "%mcp logs everything")
    assert "stderr of everything" in repr(logs) and "Starting default (STDIO) server" in repr(logs)


def test_restart(ip: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    pid = line(ip, "status demo").server.pid
    run(ip, "%mcp restart demo")
    assert capsys.readouterr().out.startswith("✓ demo: penguins")
    assert line(ip, "status demo").server.pid != pid


def test_assignment_and_semicolon(ip: InteractiveShell) -> None:
    assert run(ip, "r = %mcp call everything.echo message=x") is None
    assert ip.user_ns["r"].text == "Echo: x"
    assert run(ip, "%mcp call everything.echo message=x;") is None
    assert run(ip, "y = %mcp call everything.echo message=y;") is None
    assert ip.user_ns["y"].text == "Echo: y"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("bogus", r"no subcommand 'bogus'"),
        ("tools nosuch", r"no server named 'nosuch' \(known: .*demo.*\); add one with %mcp add nosuch"),
        ("call demo", r"expected SERVER\.TOOL, got 'demo'"),
        ("call demo.nope", r"server 'demo' has no tool 'nope'"),
        ("call demo.query_penguins species=Emperor", r"species: 'Emperor' is not one of"),
        ("call demo.query_penguins limit", r"expected key=value, got 'limit'"),
        ("call demo.query_penguins species=$undefined_name", r"no variable 'undefined_name'"),
        ("call demo.query_penguins --timeout soon", r"--timeout takes seconds, not 'soon'"),
        ("call demo.query_penguins --verbose", r"unknown option '--verbose'"),
        ("call --timeout 3", r"give SERVER\.TOOL first"),
        ("read demo", r"the following arguments are required: uri"),
        ("add x", r"the following arguments are required: url"),
        ("add x -- ", r"nothing after --"),
        ("add x python", r"'python' is not a URL; .* %mcp add x -- python"),
        ("add a__b -- python", r"invalid server name 'a__b'"),
        ("load /nonexistent/mcp.json", r"no such file"),
        ('call demo.query_penguins species="unclosed', r"cannot parse"),
        ("help nope", r"no subcommand 'nope'"),
        # Prompt arguments are checked against the listing before anything is sent.
        (
            "prompt everything.args-prompt",
            r"'args-prompt': missing required argument 'city' \(arguments: city\*",
        ),
        ("prompt everything.args-prompt city=Paris colour=red", r"prompt 'args-prompt' has no argument 'colour'"),
        # A template's variables: each given, no other; a template is not read as it is.
        ("read demo penguins://species/{species}.csv", r"no value for species; give its variables species"),
        ("read demo penguins://species/{species}.csv kind=x", r"unknown kind; give its variables species"),
        ("read demo penguins://data.csv species=Gentoo", r"penguins://data.csv is not a template"),
        ("read demo penguins://species/{species}.csv species=Gentoo timeout=5", r"use --timeout S and --refresh"),
        ("prompt everything.args-promp", r"server 'everything' has no prompt 'args-promp'; did you mean 'args-prompt'"),
    ],
)
def test_user_mistakes_are_one_line_usage_errors(ip: InteractiveShell, text: str, expected: str) -> None:
    with pytest.raises(UsageError, match=expected) as info:
        line(ip, text)
    assert "\n" not in str(info.value)


def test_server_errors_show_message_and_code_without_traceback(ip: InteractiveShell) -> None:
    with pytest.raises(RPCError) as info:
        line(ip, "read everything nope://x")
    rendered = info.value._render_traceback_()  # type: ignore[attr-defined]
    assert len(rendered) == 1 and "RPCError" in rendered[0] and "nope://x not found" in rendered[0]
    assert "(code -32" in rendered[0]


def test_failed_server_stays_listed(ip: InteractiveShell) -> None:
    command, args = faulty_cmd("crash-at-start")
    with pytest.raises(Exception) as info:
        line(ip, f"add broken -- {command} {' '.join(args)}")
    assert "MY_API_KEY is not set" in str(info.value)
    frame = run(ip, "%mcp list").set_index("name")
    assert frame.loc["broken", "status"] == "failed" and "MY_API_KEY" in frame.loc["broken", "error"]
    with pytest.raises(UsageError, match=r"not connected.*restart"):
        line(ip, "tools broken")
    run(ip, "%mcp remove broken")


def test_server_exit_mid_call(ip: InteractiveShell) -> None:
    command, args = faulty_cmd("ok")
    run(ip, f"%mcp add dies -- {command} {' '.join(args)}")
    with pytest.raises(ServerExited, match="code 3"):
        line(ip, "call dies.die")
    run(ip, "%mcp remove dies")


def test_help(ip: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    run(ip, "%mcp help")
    overview = capsys.readouterr().out
    for sub in ("add", "load", "list", "tools", "resources", "templates", "prompts", "read", "call", "prompt",
                "status", "logs", "restart", "remove"):  # fmt: skip
        assert f"%mcp {sub}" in overview
    assert "%%mcp_call" in overview
    run(ip, "%mcp help add")
    assert "--bearer-env" in capsys.readouterr().out
    doc = ip.find_line_magic("mcp").__doc__
    assert "%mcp call SERVER.TOOL" in doc and "Example" not in doc[:0]


def test_config_settings(ip: InteractiveShell) -> None:
    run(ip, "%config MCPMagics.request_timeout = 5.5")
    run(ip, "%config MCPMagics.validate_arguments = False")
    from mcp_notebook import get_client

    assert get_client().settings.request_timeout == 5.5 and get_client().settings.validate is False
    run(ip, "%config MCPMagics.request_timeout = 60.0")
    run(ip, "%config MCPMagics.validate_arguments = True")


def test_completion(ip: InteractiveShell) -> None:
    from mcp_notebook import get_client

    client = get_client()
    assert {"add", "call", "tools"} <= set(candidates(client, "%mcp "))
    assert candidates(client, "%mcp to") == ["tools"]
    assert set(candidates(client, "%mcp tools ")) >= {"demo", "everything"}
    assert candidates(client, "%mcp call de") == ["demo."]
    assert "demo.query_penguins" in candidates(client, "%mcp call demo.q")
    assert candidates(client, "%mcp call demo.query_penguins sp") == ["species="]
    assert "species=" not in candidates(client, "%mcp call demo.query_penguins species=Gentoo ")
    assert candidates(client, "%mcp prompt demo.") == ["demo.explore"]
    assert candidates(client, "%mcp prompt demo.explore q") == ["question="]
    assert "penguins://data.csv" in candidates(client, "%mcp read demo penguins://d")
    assert candidates(client, "%%mcp_call demo.sum") == ["demo.summarize_penguins"]
    # Through IPython's own completer, as a kernel answers Tab: each match replaces the
    # range IPython chose, so the text must fit that range.
    from IPython.core.completer import provisionalcompleter

    def complete(code: str) -> set[str]:
        with provisionalcompleter():
            return {code[: c.start] + c.text for c in ip.Completer.completions(code, len(code))}

    assert "%mcp call demo.query_penguins" in complete("%mcp call demo.query_p")
    assert "%mcp read demo penguins://data.csv" in complete("%mcp read demo penguins://da")
    assert "%mcp call demo.query_penguins island=" in complete("%mcp call demo.query_penguins isl")


def test_rich_reprs(ip: InteractiveShell) -> None:
    formatter = ip.display_formatter
    result = line(ip, "call demo.query_penguins species=Gentoo limit=3")
    data, _ = formatter.format(result)
    assert "<table" in data["text/html"] and "Gentoo" in data["text/html"]
    assert data["text/plain"].startswith("{")
    image = line(ip, "call everything.get-tiny-image")
    assert 'src="data:image/png;base64,' in formatter.format(image)[0]["text/html"]
    links = line(ip, "call everything.get-resource-links count=2")
    assert "🔗" in formatter.format(links)[0]["text/html"]
    embedded = line(ip, "call everything.get-resource-reference resourceType=Text resourceId=1")
    assert "📄" in formatter.format(embedded)[0]["text/html"]
    fine = line(ip, "call everything.get-sum a=1 b=2")
    assert "Tool error" not in formatter.format(fine)[0]["text/html"]
    # structuredContent that is not a list of records shows as JSON, not as a table.
    structured = line(ip, "call everything.get-structured-content location='New York'")
    html = formatter.format(structured)[0]["text/html"]
    assert "<table" not in html and "&quot;temperature&quot;" in html
    assert structured.structured["temperature"] == structured.to_frame()["temperature"][0]
    csv = line(ip, "read demo penguins://data.csv")
    html = formatter.format(csv)[0]["text/html"]
    assert "<table" in html and "344 rows" in html
    prompt = line(ip, "prompt demo.explore question=q")
    assert "<b>user</b>" in formatter.format(prompt)[0]["text/html"]


def test_audio_plays_inline(ip: InteractiveShell) -> None:
    run(ip, f"%mcp add media -- {sys.executable} {SERVERS / 'media_server.py'}")
    try:
        result = line(ip, "call media.tone hertz=440")
        assert [block["type"] for block in result.content] == ["text", "audio"]
        html = ip.display_formatter.format(result)[0]["text/html"]
        assert '<audio controls src="data:audio/wav;base64,UklGR' in html and "440 Hz" in html
    finally:
        run(ip, "%mcp remove media")


def test_load_connects_every_server_of_a_config_file(
    ip: InteractiveShell, tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    command, args = faulty_cmd("crash-at-start")
    config = tmp_path / ".mcp.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
                    "crashy": {"command": command, "args": args},
                }
            }
        )
    )
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)
    try:
        run(ip, "%mcp load --trust")  # ./.mcp.json by default (written here: trusted; see test_trust.py)
        out = capsys.readouterr().out
        assert "✓ time: mcp-time" in out and "✗ crashy" in out and "MY_API_KEY" in out
        frame = run(ip, "%mcp list").set_index("name")
        assert frame.loc["time", "status"] == "connected" and frame.loc["crashy", "status"] == "failed"
    finally:  # the kernel-wide client outlives this test: leave nothing for the next ones
        run(ip, "%mcp remove time")
        run(ip, "%mcp remove crashy")


def test_tool_error_result_shows_an_error_box(client: Any) -> None:
    from mcp_notebook.commands.display import call_result_html

    server = client.add("time", sys.executable, ["-m", "mcp_server_time"])
    failed = server.call_tool("get_current_time", {"timezone": "Not/AZone"})
    assert failed.is_error and "Tool error" in call_result_html(failed)


def test_a_render_decides_once_whether_the_structured_value_shows(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether a result's structured value shows (and so which blocks repeat it) is worked
    out once per rendering, HTML or text, not once for the blocks and again for the value."""
    from mcp_notebook.commands import display

    server = client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"])
    result = server.call_tool("query_penguins", {"species": "Gentoo", "limit": 2})
    decided: list[object] = []
    decide = display._structured_shown
    monkeypatch.setattr(display, "_structured_shown", lambda r: decided.append(r) or decide(r))
    html, text = display.call_result_html(result), display.call_result_text(result)
    assert decided == [result, result]  # one for each rendering
    assert "Gentoo" in html and "Gentoo" in text


def test_large_outputs_warn_and_truncate_display_not_data(ip: InteractiveShell) -> None:
    from mcp_notebook.commands import display

    run(ip, "%config MCPMagics.warn_tokens = 100")
    run(ip, "%config MCPMagics.max_tokens = 200")
    try:
        result = line(ip, "call everything.echo message={'x' * 2000}")
        html = ip.display_formatter.format(result)[0]["text/html"]
        assert "Large output: about 501 tokens" in html and "Display cut at about 200 tokens" in html
        assert html.count("x") < 1000 and len(result.text) == 2006  # the data is whole
        assert "Display cut" in display.call_result_text(result)
    finally:
        run(ip, "%config MCPMagics.warn_tokens = 10000")
        run(ip, "%config MCPMagics.max_tokens = 25000")


def test_unload_removes_everything() -> None:
    shell = InteractiveShell.instance()
    run(shell, "%load_ext mcp_notebook")
    run(shell, "%unload_ext mcp_notebook")
    assert shell.find_line_magic("mcp") is None and shell.find_cell_magic("mcp_call") is None
    run(shell, "%load_ext mcp_notebook")  # and it loads again
    assert shell.find_line_magic("mcp") is not None


FILESYSTEM = ROOT / "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"


def test_a_servers_own_folder_wins(ip: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No roots are offered by default: the filesystem server works in the folder its
    arguments name (offered the notebook's folder, it used to replace its own with it)."""
    from mcp_notebook import get_client

    assert get_client().roots == []
    assert run(ip, "%mcp roots").empty
    assert "no roots are offered" in capsys.readouterr().out
    folder = tmp_path / "named"
    folder.mkdir()
    (folder / "x.txt").write_text("hello from the named folder")
    run(ip, f"%mcp add fs -- {node()} {FILESYSTEM} {folder}")
    try:
        assert str(folder) in line(ip, "call fs.list_allowed_directories").text
        assert line(ip, f"call fs.read_text_file path={folder / 'x.txt'}").text == "hello from the named folder"
    finally:
        run(ip, "%mcp remove fs")


def test_roots(ip: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import threading

    from mcp_notebook import get_client

    run(ip, f"%mcp add unrooted -- {node()} {EVERYTHING} stdio")
    # A server connected while no roots are offered does not see the capability.
    assert "get-roots-list" not in set(run(ip, "%mcp tools unrooted")["name"])
    first = tmp_path / "first"
    first.mkdir()
    assert list(run(ip, f"%mcp roots add {first}")["uri"]) == [first.as_uri()]
    # ... and the person is told how to offer it the roots.
    out = capsys.readouterr().out.splitlines()
    assert any(t.startswith(f"✓ added root {first.as_uri()}") for t in out)  # what was done
    note = next(t for t in out if "cannot see it until restarted" in t)
    assert "unrooted" in note and "%mcp restart unrooted" in note and "%mcp restart demo" in note
    run(ip, "%mcp remove unrooted")
    run(ip, f"%mcp add rooted -- {node()} {EVERYTHING} stdio")
    assert str(first) in line(ip, "call rooted.get-roots-list").text  # server-everything asked
    # A connected server is told when the roots change (roots/list_changed); server-everything
    # then asks again and logs how many it got.
    told = threading.Event()

    def on_log(server: str, method: str, params: dict) -> None:
        if server == "rooted" and "Roots updated: 2 root(s)" in str(params.get("data")):
            told.set()

    get_client().notification_listeners.append(on_log)
    data = tmp_path / "data"
    data.mkdir()
    try:
        assert data.as_uri() in set(run(ip, f"%mcp roots add {data}")["uri"])
        assert told.wait(20)
    finally:
        get_client().notification_listeners.remove(on_log)
    assert str(data) in line(ip, "call rooted.get-roots-list").text
    assert data.as_uri() not in set(run(ip, f"%mcp roots remove {data}")["uri"])
    with pytest.raises(UsageError, match="is not a root"):
        line(ip, f"roots remove {data}")
    with pytest.raises(UsageError, match="is not a folder"):
        line(ip, f"roots add {tmp_path / 'missing'}")
    run(ip, "%mcp remove rooted")
    run(ip, f"%mcp roots remove {first}")


def test_roots_from_config(ip: InteractiveShell, tmp_path: Path) -> None:
    from mcp_notebook import get_client

    run(ip, f"%config MCPMagics.roots = [{str(tmp_path)!r}]")
    try:
        assert [r["uri"] for r in get_client().roots] == [tmp_path.as_uri()]
    finally:
        run(ip, "%config MCPMagics.roots = []")
    assert get_client().roots == []


def test_subscribe(ip: InteractiveShell) -> None:
    import threading

    uri = line(ip, "resources everything")["uri"].iloc[0]
    view = line(ip, f"subscribe everything {uri}")
    updated = threading.Event()
    server = line(ip, "status everything").server
    server.subscribe(uri, lambda u, params: updated.set())  # a callback through the API too
    line(ip, "call everything.toggle-subscriber-updates")
    try:
        assert updated.wait(20)
        assert view.count >= 1 and "update(s)" in view.widget.value
    finally:
        line(ip, "call everything.toggle-subscriber-updates")
        run(ip, f"%mcp unsubscribe everything {uri}")
    run(ip, f"%mcp add time -- {sys.executable} -m mcp_server_time")
    try:
        with pytest.raises(UsageError, match="does not offer resource subscriptions"):
            line(ip, "subscribe time time://now")
    finally:
        run(ip, "%mcp remove time")


def test_logs_show_in_the_calling_cell(ip: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    line(ip, "loglevel demo info")  # a modern server (demo speaks 2026-07-28) logs only when asked
    result = line(ip, "call demo.fit_model epochs=2 seconds_per_epoch=0.01")
    assert "fitted in 2 epochs" in result.text
    out = capsys.readouterr().out
    assert "[demo info] epoch 1: loss 0.500" in out and "[demo info] epoch 2: loss 0.333" in out
    run(ip, "%config MCPMagics.show_logs = False")
    line(ip, "call demo.fit_model epochs=1 seconds_per_epoch=0.01")
    assert "[demo info]" not in capsys.readouterr().out
    run(ip, "%config MCPMagics.show_logs = True")


def test_url_elicitation_required(ip: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    command, args = faulty_cmd("ok")
    run(ip, f"%mcp add urls -- {command} {' '.join(args)}")
    with pytest.raises(RPCError, match=r"needs you to complete a step in your browser first.*then call again"):
        line(ip, "call urls.needs_url")
    assert "Connect your account: https://auth.example/connect" in capsys.readouterr().err
    run(ip, "%mcp remove urls")


def test_a_malformed_log_or_progress_breaks_nothing_in_the_cell(ip: InteractiveShell) -> None:
    # A log message whose params are a list, a progress total "xyz": skipped where they
    # arrive, so the call's cell and %mcp logs work (they raised AttributeError, ValueError).
    run(ip, f"%mcp add hostile -- {sys.executable} {ROOT / 'tests/servers/hostile.py'}")
    try:
        for kind in ("log-params-list", "progress-total-string"):
            assert run(ip, f"%mcp call hostile.bad kind={kind}").text == f"after {kind}"
        logs = run(ip, "%mcp logs hostile")
        text = repr(logs)
        assert "log messages (0):" in text
        assert "notifications/message params that are a list, not an object" in text
        assert "a progress total that is a string, not a number" in text
        assert "a progress total that is a string" in logs._repr_html_()
    finally:
        run(ip, "%mcp remove hostile")


def test_a_result_says_each_thing_once() -> None:
    """A text block that only repeats the structured value is not shown beside it: a plain
    return wrapped as {"result": text} shows the text once; rows given both as JSON text
    blocks and as structured records show once, as the table."""
    import sys

    from mcp_notebook import Client
    from mcp_notebook.commands import display

    client = Client()
    try:
        demo = client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"])
        explored = demo.call_tool("fit_model", {"epochs": 1, "seconds_per_epoch": 0})
        assert isinstance(explored.structured, dict) and list(explored.structured) == ["result"]
        text = display.call_result_text(explored)
        assert text.count(explored.text.strip()[:30]) == 1 and '"result"' not in text
        summary = demo.call_tool("summarize_penguins", {})
        assert len(summary.content) == 3  # each row again as a JSON text block
        html = display.call_result_html(summary)
        assert html.count(">Adelie<") == 1  # the table's cell, once
        assert "3 repeating the structured value, not shown" in html
    finally:
        client.close()
