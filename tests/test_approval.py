"""The approval policy: what asks, what runs, what is refused (the Python API, no notebook)."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from mcp_notebook import ApprovalPolicy, ApprovalRequest, ArgumentError, Client, ToolDenied
from mcp_notebook.runtime.asking.interaction import ApprovalAnswer, Interaction

DESTRUCTIVE = {"destructiveHint": True}


@pytest.mark.parametrize(
    ("policy", "tool", "hints", "expected"),
    [
        (ApprovalPolicy(), "rm", DESTRUCTIVE, "ask"),
        (ApprovalPolicy(), "rm", {"destructiveHint": True, "readOnlyHint": True}, "allow"),
        (ApprovalPolicy(), "ls", {}, "allow"),  # unannotated: the person typing the call wrote it
        (ApprovalPolicy(mode="always"), "ls", {"readOnlyHint": True}, "ask"),
        (ApprovalPolicy(mode="never"), "rm", DESTRUCTIVE, "allow"),
        (ApprovalPolicy(allow={"srv": ["r*"]}), "rm", DESTRUCTIVE, "allow"),
        (ApprovalPolicy(allow={"*": ["rm"]}), "rm", DESTRUCTIVE, "allow"),
        (ApprovalPolicy(mode="never", deny={"srv": ["rm"]}), "rm", {}, "deny"),
        (ApprovalPolicy(allow={"srv": ["*"]}, deny={"*": ["rm"]}), "rm", {}, "deny"),  # deny wins
        (ApprovalPolicy(allow={"other": ["rm"]}), "rm", DESTRUCTIVE, "ask"),
    ],
)
def test_decide(policy: ApprovalPolicy, tool: str, hints: dict, expected: str) -> None:
    assert policy.decide("srv", tool, hints) == expected


def test_unknown_mode() -> None:
    with pytest.raises(ValueError, match="unknown approval mode"):
        ApprovalPolicy(mode="sometimes")  # type: ignore[arg-type]


class Answers(Interaction):
    """An interaction that answers approvals from a list (as a person would)."""

    def __init__(self, *answers: ApprovalAnswer) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        return self.answers.pop(0)


def test_python_api_asks_then_remembers_always_allow() -> None:
    answers = Answers("deny", "always")
    client = Client(interaction=answers)
    try:
        demo = client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"])
        with pytest.raises(ToolDenied, match=r"demo\.delete_penguins was denied; nothing was sent"):
            demo.call_tool("delete_penguins", {"species": "Adelie"})
        assert demo.call_tool("query_penguins", {"species": "Adelie"}).structured["count"] == 152  # not deleted
        request = answers.asked[0]
        assert request.annotations["destructiveHint"] is True and request.arguments == {"species": "Adelie"}
        assert "untrusted" in request.describe()
        assert "deleted 152" in demo.call_tool("delete_penguins", {"species": "Adelie"}).text
        assert "deleted 0" in demo.call_tool("delete_penguins", {"species": "Adelie"}).text  # not asked again
        assert len(answers.asked) == 2
    finally:
        client.close()


def test_headless_console_denies_with_how_to_allow() -> None:
    client = Client()  # ConsoleInteraction; pytest's stdin is not a terminal
    try:
        demo = client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"])
        with pytest.raises(ToolDenied, match=r"nobody can answer here.*approval_allow"):
            demo.call_tool("delete_penguins", {"species": "Gentoo"})
        client.approval.allow = {"demo": ["delete_*"]}
        assert "deleted 124" in demo.call_tool("delete_penguins", {"species": "Gentoo"}).text
    finally:
        client.close()


class Bars(Interaction):
    """Defines progress only, like docs/python-api.md's example."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, float, float | None]] = []

    def progress(self, server: str, tool: str, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((server, tool, progress, total))


class AnswersWhileWaiting(Interaction):
    """Answers the server's questions only in wait (no waker for the fast path)."""

    services_prompts = True

    def __init__(self) -> None:
        self.waited_for: list[str | None] = []

    def wait(self, start: Any, server: str | None = None) -> Any:
        self.waited_for.append(server)
        return super().wait(start, server)


def test_an_interaction_that_defines_progress_is_given_it() -> None:
    bars = Bars()
    client = Client(interaction=bars)
    try:
        demo = client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"])
        demo.call_tool("fit_model", {"epochs": 3, "seconds_per_epoch": 0})
        assert bars.seen == [("demo", "fit_model", float(i), 3.0) for i in (1, 2, 3)]
    finally:
        client.close()


def test_an_interaction_that_answers_only_while_it_waits_gets_each_call() -> None:
    interaction = AnswersWhileWaiting()
    client = Client(interaction=interaction)
    try:
        demo = client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"])
        demo.list_tools()  # cached: the call is one request
        interaction.waited_for.clear()
        demo.call_tool("query_penguins", {"species": "Adelie", "limit": 1})
        assert interaction.waited_for == ["demo"]  # not the fast path, which would skip it
    finally:
        client.close()


@pytest.mark.parametrize("awaited", [False, True], ids=["request", "arequest"])
def test_a_raw_tools_call_request_is_refused_with_the_method_to_use(awaited: bool) -> None:
    # request() would skip the tool lists and the approval policy: it names call_tool instead.
    client = Client()  # the default policy, and nobody can answer here
    try:
        demo = client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"], disabled_tools=["query_*"])
        for name, arguments in (("delete_penguins", {"species": "Gentoo"}), ("query_penguins", {})):
            params = {"name": name, "arguments": arguments}
            with pytest.raises(ArgumentError) as info:
                if awaited:
                    asyncio.run(demo.arequest("tools/call", params))
                else:
                    demo.request("tools/call", params)
            message = str(info.value)
            assert "\n" not in message and "server.call_tool(" in message and "tools/call" in message
        assert demo.request("resources/list")["resources"]  # other methods still go
        client.approval.mode = "never"
        assert "deleted 124" in demo.call_tool("delete_penguins", {"species": "Gentoo"}).text  # never sent before
    finally:
        client.close()
