"""The Python API against the reference server, @modelcontextprotocol/server-everything, over stdio."""

from __future__ import annotations

import asyncio
import threading

import pytest
from support.peers import check_resource_updates

from mcp_notebook import ArgumentError, Client, Handlers, RequestTimeout, RPCError, Status, UnknownPrompt, UnknownTool

WAIT = 20.0  # seconds: a deadline for events, never a sleep


def test_handshake(everything):  # type: ignore[no-untyped-def]
    assert everything.status is Status.CONNECTED
    assert everything.server_info["name"] == "mcp-servers/everything"
    assert everything.protocol_version == "2025-11-25"
    assert "tools" in everything.capabilities
    assert "Everything Server" in (everything.instructions or "")
    assert everything.pid and everything.pid > 0
    assert "connected" in repr(everything)
    everything.ping()


def test_tools_listing(everything):  # type: ignore[no-untyped-def]
    tools = {t.name: t for t in everything.list_tools()}
    assert {"echo", "get-sum", "get-structured-content", "trigger-long-running-operation"} <= set(tools)
    # Capability-gated tools are not offered: this client declared no elicitation/sampling/roots.
    assert "trigger-elicitation-request" not in tools
    assert "get-roots-list" not in tools
    echo = tools["echo"]
    assert echo.qualified_name == "mcp__everything__echo"
    assert echo.read_only and not echo.destructive
    assert echo.required_arguments == ["message"]
    assert tools["get-structured-content"].output_schema is not None


def test_resources_templates_prompts(everything):  # type: ignore[no-untyped-def]
    resources = everything.list_resources()
    assert resources and all(r.uri for r in resources)
    templates = everything.list_resource_templates()
    assert {t.uri_template for t in templates} >= {"demo://resource/dynamic/text/{resourceId}"}
    prompts = {p.name: p for p in everything.list_prompts()}
    assert {"simple-prompt", "args-prompt", "completable-prompt"} <= set(prompts)
    assert any(a["name"] == "city" for a in prompts["args-prompt"].arguments)


def test_call_tools(everything):  # type: ignore[no-untyped-def]
    assert everything.call_tool("echo", {"message": "hi"}).text == "Echo: hi"
    total = everything.call_tool("get-sum", {"a": 2, "b": 3})
    assert "5" in total.text and not total.is_error
    structured = everything.call_tool("get-structured-content", {"location": "New York"})
    assert isinstance(structured.structured, dict) and structured.output_error is None
    image = everything.call_tool("get-tiny-image")
    assert any(block["type"] == "image" and block["mimeType"] == "image/png" for block in image.content)


def test_argument_validation(everything):  # type: ignore[no-untyped-def]
    with pytest.raises(ArgumentError, match=r"'message' is required"):
        everything.call_tool("echo", {})
    with pytest.raises(ArgumentError, match=r"a: 'two' is not of type 'number'"):
        everything.call_tool("get-sum", {"a": "two", "b": 3})
    # Switched off, the server itself judges (and says no in its own way).
    result_or_error = None
    try:
        result_or_error = everything.call_tool("get-sum", {"a": "two", "b": 3}, validate=False)
    except RPCError as e:
        result_or_error = e
    assert isinstance(result_or_error, RPCError) or result_or_error.is_error


def test_unknown_tool_suggests(everything):  # type: ignore[no-untyped-def]
    with pytest.raises(UnknownTool, match=r"no tool 'sum'.*'get-sum'"):
        everything.call_tool("sum", {})


def test_read_resources(everything):  # type: ignore[no-untyped-def]
    first = everything.list_resources()[0]
    read = everything.read_resource(first.uri)
    assert read.contents and read.contents[0]["uri"] == first.uri
    text = everything.read_resource("demo://resource/dynamic/text/1")
    assert "1" in text.text and text.mime_type
    blob = everything.read_resource("demo://resource/dynamic/blob/1")
    assert isinstance(blob.bytes, bytes) and blob.bytes


def test_prompts_and_completion(everything):  # type: ignore[no-untyped-def]
    simple = everything.get_prompt("simple-prompt")
    assert simple.messages[0]["role"] == "user" and "simple prompt" in simple.text
    with_args = everything.get_prompt("args-prompt", {"city": "Paris", "state": "TX"})
    assert "Paris" in with_args.text
    values = everything.complete({"type": "ref/prompt", "name": "completable-prompt"}, "department", "E")
    assert values == ["Engineering"]


def test_prompt_arguments_are_checked_before_sending(everything):  # type: ignore[no-untyped-def]
    with pytest.raises(ArgumentError, match=r"missing required argument 'city'"):
        everything.get_prompt("args-prompt")

    async def awaited() -> None:
        await everything.aget_prompt("args-prompt", {"city": "Paris", "colour": "red"})

    with pytest.raises(ArgumentError, match=r"has no argument 'colour' \(arguments: city\*, state\)"):
        asyncio.run(awaited())
    with pytest.raises(UnknownPrompt, match="did you mean 'args-prompt'"):
        everything.get_prompt("args-promp")
    assert "Paris" in everything.get_prompt("args-prompt", {"city": "Paris"}).text


def test_progress_notifications(everything):  # type: ignore[no-untyped-def]
    seen: list[tuple[float, float | None]] = []
    result = everything.call_tool(
        "trigger-long-running-operation",
        {"duration": 1, "steps": 4},
        on_progress=lambda progress, total, message: seen.append((progress, total)),
    )
    assert "completed" in result.text
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_progress_restarts_the_timeout(everything):  # type: ignore[no-untyped-def]
    def run(steps: int) -> str:
        params = {"duration": 3, "steps": steps}
        quiet = lambda *_: None  # noqa: E731
        return everything.call_tool("trigger-long-running-operation", params, timeout=1.5, on_progress=quiet).text

    # 3 s of work with progress every 0.25 s outlives a 1.5 s timeout: each report restarts it.
    assert "completed" in run(12)
    # The same work reporting only at the end does not.
    with pytest.raises(RequestTimeout, match=r"1\.5 s"):
        run(1)
    assert everything.call_tool("echo", {"message": "still usable"}).text == "Echo: still usable"


def test_log_notifications(everything):  # type: ignore[no-untyped-def]
    got = threading.Event()
    remove = everything.on_notification(lambda method, params: method == "notifications/message" and got.set())
    everything.set_log_level("debug")
    everything.call_tool("toggle-simulated-logging")
    try:
        assert got.wait(WAIT), "no log notification arrived"
        assert everything.logs and {"level", "data"} <= set(everything.logs[-1])
    finally:
        everything.call_tool("toggle-simulated-logging")
        remove()
    with pytest.raises(ArgumentError, match="unknown log level"):
        everything.set_log_level("verbose")


def test_resource_subscription(everything):  # type: ignore[no-untyped-def]
    check_resource_updates(everything, WAIT)


def test_async_api_from_another_loop(everything):  # type: ignore[no-untyped-def]
    async def main() -> list[str]:
        tools = await everything.alist_tools()
        assert tools
        results = await asyncio.gather(*(everything.acall_tool("echo", {"message": str(i)}) for i in range(50)))
        return [r.text for r in results]

    assert asyncio.run(main()) == [f"Echo: {i}" for i in range(50)]


def test_blocking_calls_from_many_threads(everything):  # type: ignore[no-untyped-def]
    errors: list[BaseException] = []
    texts: dict[int, list[str]] = {}

    def work(n: int) -> None:
        try:
            texts[n] = [everything.call_tool("echo", {"message": f"{n}-{i}"}).text for i in range(25)]
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert not errors
    assert all(texts[n] == [f"Echo: {n}-{i}" for i in range(25)] for n in range(8))


def test_handlers_declare_capabilities(everything_cmd):  # type: ignore[no-untyped-def]
    asked: list[dict] = []

    def elicit(params: dict) -> dict:
        asked.append(params)
        return {"action": "accept", "content": {"color": "blue"}}

    def sample(params: dict) -> dict:
        return {"role": "assistant", "content": {"type": "text", "text": "sampled reply"}, "model": "test-model"}

    async def roots(params: dict) -> dict:
        return {"roots": [{"uri": "file:///tmp/project", "name": "project"}]}

    client = Client(handlers=Handlers(elicitation=elicit, sampling=sample, roots=roots))
    try:
        server = client.add("everything", *everything_cmd)
        names = {t.name for t in server.list_tools()}
        assert {"trigger-elicitation-request", "trigger-sampling-request", "get-roots-list"} <= names
        assert "file:///tmp/project" in server.call_tool("get-roots-list").text
        sampled = server.call_tool("trigger-sampling-request", {"prompt": "hello", "maxTokens": 10})
        assert "sampled reply" in sampled.text
        elicited = server.call_tool("trigger-elicitation-request")
        assert asked and "requestedSchema" in asked[0]
        assert not elicited.is_error
    finally:
        client.close()
