"""A server's tool lists: the tools used, as names or globs (``enabledTools`` /
``disabledTools`` in a config file, Codex's ``enabled_tools`` / ``disabled_tools``, ``%mcp
add --tools / --exclude-tools``, ``Client.add(enabled_tools=…, disabled_tools=…)``). A tool
left out is not listed (``--all`` lists it, saying which setting leaves it out), not
callable (one line naming that setting: nothing is sent), not a function of
``server.tools``, not in ``tool_schemas()`` or a map. Against server-everything."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from IPython.core.error import UsageError
from support.shells import extension_loaded, line, run

from mcp_notebook import Client, ConfigError, ToolExcluded
from mcp_notebook.core.config.entries import config_entry
from mcp_notebook.core.config.servers import load_config


def allowed(names: Any) -> set[str]:
    """Of server-everything's tools (which ones it has depends on what the client offers,
    such as roots), those that --tools 'get-*,echo' --exclude-tools get-env keeps."""
    return {n for n in names if (n.startswith("get-") or n == "echo") and n != "get-env"}


def sent_calls(client: Client) -> list[str]:
    """The tools/call requests the client sent, by tool."""
    return [c.params.get("name") for c in client.calls("everything") if c.method == "tools/call"]


def test_globs_choose_the_tools_and_a_left_out_one_is_never_sent(client: Client, everything_cmd: Any) -> None:
    server = client.add("everything", *everything_cmd, enabled_tools=["get-*", "echo"], disabled_tools=["get-env"])
    every = {t.name: t.excluded for t in server.list_tools(all=True)}
    assert {t.name for t in server.list_tools()} == allowed(every) != set()
    assert every["get-env"] == "disabledTools 'get-env' (%mcp add)"
    assert every["simulate-research-query"] == "enabledTools ['get-*', 'echo'] (%mcp add), which it is not in"
    assert every["echo"] is None
    said = (
        "tool 'get-env' of server 'everything' is left out by disabledTools 'get-env' (%mcp add); "
        "%mcp tools everything --all lists what is left out"
    )
    with pytest.raises(ToolExcluded, match=f"^{said}$".replace("(", r"\(").replace(")", r"\)")):
        server.call_tool("get-env")
    with pytest.raises(ToolExcluded, match="simulate-research-query"):
        server.map("simulate-research-query", [{"topic": "a"}, {"topic": "b"}])
    assert sent_calls(client) == []  # nothing reached the server
    assert {s["function"]["name"] for s in server.tool_schemas()} == {f"mcp__everything__{n}" for n in allowed(every)}
    assert not hasattr(server.tools, "get_env") and hasattr(server.tools, "get_sum")
    assert server.call_tool("get-sum", {"a": 1, "b": 2}).text == "The sum of 1 and 2 is 3."  # the others work


def test_magics_add_lists_and_refuse_in_one_line(everything_cmd: Any) -> None:
    command, args = everything_cmd
    with extension_loaded() as shell:
        try:
            run(
                shell, f"%mcp add everything --tools 'get-*,echo' --exclude-tools get-env -- {command} {' '.join(args)}"
            )
            listed = line(shell, "tools everything")
            every = line(shell, "tools everything --all").set_index("name")
            assert set(listed["name"]) == allowed(every.index) and "excluded" not in listed.columns
            assert every.loc["get-env", "excluded"] == "disabledTools 'get-env' (%mcp add)"
            assert pd.isna(every.loc["echo", "excluded"])
            with pytest.raises(UsageError, match="left out by disabledTools 'get-env'"):  # one line
                run(shell, "%mcp call everything.get-env")
        finally:
            run(shell, "%mcp remove everything")


def test_config_files_ours_and_codexs_keys_and_saved_back(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    servers = {
        "ours": {"command": "x", "enabledTools": ["get-*"], "disabledTools": ["get-env"]},
        "codex": {"command": "x", "enabled_tools": ["echo"], "disabled_tools": ["echo-*"]},
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    configs = load_config(path)
    assert (configs["ours"].enabled_tools, configs["ours"].disabled_tools) == (["get-*"], ["get-env"])
    assert (configs["codex"].enabled_tools, configs["codex"].disabled_tools) == (["echo"], ["echo-*"])
    assert configs["ours"].tool_excluded("get-env") == f"disabledTools 'get-env' ({path})"
    entry, _ = config_entry(configs["codex"])
    assert entry["enabledTools"] == ["echo"] and entry["disabledTools"] == ["echo-*"]  # saved in our keys
    path.write_text(json.dumps({"mcpServers": {"bad": {"command": "x", "disabledTools": "get-env"}}}))
    with pytest.raises(
        ConfigError, match=r"mcpServers\.bad\.disabledTools: must be a list of tool names or glob patterns"
    ):
        load_config(path)
