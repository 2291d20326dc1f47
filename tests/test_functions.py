"""``server.tools``: tools as Python functions (signatures, docstrings, calls, ``.acall``,
``tools/list_changed``), ``server.tool_schemas``, and a real kernel's completion and
inspection of ``demo.tools.``; against server-everything, the demo server and the SDK's server."""

from __future__ import annotations

import asyncio
import inspect
import re
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, Optional, Union

import pytest
from conftest import wait_for
from kernels import Kernel, text_of

from mcp_notebook import Client, Handlers
from mcp_notebook.core.naming import split_qualified_name
from mcp_notebook.errors import ArgumentError

SDK_MODERN = str(Path(__file__).resolve().parent / "servers" / "sdk_modern.py")


@pytest.fixture(scope="module")
def demo(module_client: Client) -> Any:
    return module_client.add("demo", command=sys.executable, args=["-m", "mcp_notebook.demo"])


JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict}
HINTS = {"readOnlyHint": "read-only", "destructiveHint": "destructive", "idempotentHint": "idempotent"}


def expected_annotation(prop: dict[str, Any]) -> Any:
    """The annotation the issue asks for, read from a property's schema (the shapes these
    servers use: a JSON type, an enum, an array, anyOf with null)."""
    if "anyOf" in prop:
        return Union[tuple(expected_annotation(o) for o in prop["anyOf"])]  # noqa: UP007
    if prop.get("type") == "null":
        return type(None)
    if "enum" in prop:
        return Literal[tuple(prop["enum"])]
    if prop.get("type") == "array":
        return list[expected_annotation(prop["items"])] if "items" in prop else list
    return JSON_TYPES[prop["type"]]


def check_function(server: Any, name: str, function: Any) -> None:
    """What every tool's function promises: its name, the tool's parameters in its signature
    (required ones positional in schema order, optional ones keyword-only), annotations from
    the JSON types, and a docstring with the title, description, each parameter's description,
    the annotations (hints) and the output schema's fields."""
    tool = server.get_tool(function.tool_name)
    assert function.__name__ == name and name.isidentifier()
    schema = tool.input_schema
    props, required = schema.get("properties", {}), schema.get("required", [])
    params = inspect.signature(function).parameters
    positional = [p.name for p in params.values() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    keyword = [p.name for p in params.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]
    assert positional == [r.replace("-", "_") for r in required], (name, positional)
    assert sorted(positional + keyword) == sorted(p.replace("-", "_") for p in props), (name, params)
    doc = inspect.getdoc(function)
    assert doc and f"tool {tool.name!r} of server {server.name!r}" in doc
    if tool.title:
        assert doc.startswith(tool.title)
    if tool.description:
        assert tool.description.strip().splitlines()[0] in doc
    for p in params.values():
        prop = props.get(p.name) or next(v for k, v in props.items() if k.replace("-", "_") == p.name)
        if "default" in prop:
            assert p.default == prop["default"]
        hint = expected_annotation(prop)
        if p.kind is inspect.Parameter.KEYWORD_ONLY and "default" not in prop:
            hint = Optional[hint]  # noqa: UP045 (None: not sent)
        assert p.annotation == hint, (name, p.name, p.annotation, hint)
        assert f"\n{p.name}" in doc  # each parameter has its entry, with its description
        if prop.get("description"):
            assert prop["description"].strip().splitlines()[0] in doc, (name, p.name)
    for key, label in HINTS.items():
        said = tool.annotations.get(key)
        if isinstance(said, bool):
            shown = label if said else f"not {label}"
            assert f"Annotations: {shown}" in doc or f", {shown}" in doc, (name, key)
    for field in (tool.output_schema or {}).get("properties", {}):
        assert f"\n    {field} : " in doc, (name, field)  # under Returns
    assert inspect.signature(function.acall) == inspect.signature(function)


@pytest.fixture(scope="module")
def everything_all(everything_cmd: tuple[str, list[str]]) -> Iterator[Any]:
    """server-everything seen by a client that answers sampling, elicitation and roots (as a
    notebook's does): it then lists the tools that need them too."""
    client = Client(
        handlers=Handlers(
            sampling=lambda params: {"role": "assistant", "content": {"type": "text", "text": "-"}, "model": "m"},
            elicitation=lambda params: {"action": "decline"},
            roots=lambda params: {"roots": []},
        )
    )
    try:
        yield client.add("everything", *everything_cmd)
    finally:
        client.close()


def test_every_tool_of_everything_is_a_function(everything_all: Any) -> None:
    everything = everything_all
    names = dir(everything.tools)
    listed = [t.name for t in everything.list_tools()]
    assert {"trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"} <= set(listed)
    assert len(names) == len(listed) and "get_sum" in names and "echo" in names
    for name in names:
        check_function(everything, name, getattr(everything.tools, name))
    get_sum = everything.tools.get_sum
    assert get_sum.tool_name == "get-sum"
    sig = inspect.signature(get_sum)
    assert [p.annotation for p in sig.parameters.values()] == [float, float]
    assert "First number" in get_sum.__doc__


def test_every_tool_of_the_demo_is_a_function(demo: Any) -> None:
    names = dir(demo.tools)
    assert names == sorted(t.name for t in demo.list_tools())
    for name in names:
        check_function(demo, name, getattr(demo.tools, name))
    query = demo.tools.query_penguins
    params = inspect.signature(query).parameters
    assert params["limit"].default == 20 and params["limit"].annotation is int
    species = params["species"].annotation
    assert typing.get_args(species) == (Literal["Adelie", "Chinstrap", "Gentoo"], type(None))
    doc = query.__doc__
    assert "At most this many rows" in doc and ">= 1; <= 1000" in doc  # description, constraints
    assert "read-only" in doc and "idempotent" in doc  # annotations
    assert "count : integer" in doc  # the output schema
    delete = inspect.signature(demo.tools.delete_penguins).parameters
    assert delete["species"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert "destructive" in demo.tools.delete_penguins.__doc__


def test_calls_by_position_and_keyword_are_call_tool(everything: Any) -> None:
    by_position = everything.tools.get_sum(2, 3)
    by_keyword = everything.tools.get_sum(b=3, a=2)
    direct = everything.call_tool("get-sum", {"a": 2, "b": 3})
    assert by_position.text == by_keyword.text == direct.text and "5" in direct.text
    assert everything.tools.echo("hi").text == everything.call_tool("echo", {"message": "hi"}).text


def test_a_bad_argument_is_the_same_one_line_error_as_call_tool(everything: Any) -> None:
    def error(call: Any) -> str:
        with pytest.raises(ArgumentError) as info:
            call()
        return str(info.value)

    assert error(lambda: everything.tools.get_sum(2, "two")) == error(
        lambda: everything.call_tool("get-sum", {"a": 2, "b": "two"})
    )
    assert error(lambda: everything.tools.get_sum(2)) == error(lambda: everything.call_tool("get-sum", {"a": 2}))
    # A keyword the function lacks is a mistake (a typo), not something to send quietly.
    unknown = error(lambda: everything.tools.echo("hi", colour="red"))
    assert unknown == "tool 'echo': unknown argument 'colour'; it takes message"
    too_many = error(lambda: everything.tools.get_sum(1, 2, 3))
    assert "takes 2 positional argument(s) (a, b) but 3 were given" in too_many and "\n" not in too_many
    twice = error(lambda: everything.tools.get_sum(1, 2, a=1))
    assert "'a' twice" in twice
    with pytest.raises(AttributeError, match="has no tool 'get_summ'; did you mean 'get_sum'"):
        everything.tools.get_summ  # noqa: B018
    assert everything.tools.echo("still usable").text.endswith("still usable")


def test_acall_awaits_the_same_call(demo: Any) -> None:
    async def both() -> tuple[Any, Any]:
        return (
            await demo.tools.query_penguins.acall(species="Gentoo", limit=2),
            await demo.acall_tool("query_penguins", {"species": "Gentoo", "limit": 2}),
        )

    via_function, direct = asyncio.run(both())
    assert via_function.structured == direct.structured and len(via_function.structured["rows"]) == 2
    assert inspect.iscoroutinefunction(demo.tools.query_penguins.acall) or sys.version_info < (3, 12)


def test_none_for_an_optional_parameter_is_not_sent(demo: Any) -> None:
    result = demo.tools.query_penguins(species=None, min_body_mass_g=None, limit=3)
    assert not result.is_error and len(result.structured["rows"]) == 3


def test_the_namespace_follows_list_changed(client: Client) -> None:
    server = client.add("grow", command=sys.executable, args=[SDK_MODERN])
    assert "grown" not in dir(server.tools)
    assert server.tools.grow_tools().text == "added grown"
    assert wait_for(lambda: "grown" in dir(server.tools))
    assert server.tools.grown().text == "grown"
    assert inspect.signature(server.tools.grown).parameters == {}


@pytest.mark.parametrize("format", ["openai", "anthropic"])
def test_tool_schemas_for_model_sdks(everything: Any, format: str) -> None:
    schemas = everything.tool_schemas(format=format)
    tools = {t.name: t for t in everything.list_tools()}
    assert len(schemas) == len(tools)
    for schema in schemas:
        body = schema["function"] if format == "openai" else schema
        if format == "openai":
            assert schema["type"] == "function"
        server, tool = split_qualified_name(body["name"])
        assert server == everything.name
        assert body["parameters" if format == "openai" else "input_schema"] == tools[tool].input_schema
        assert body["description"]
    with pytest.raises(ArgumentError, match="format 'gemini': not one of openai, anthropic"):
        everything.tool_schemas(format="gemini")


# -- a real kernel: %mcp use, Tab completion and Shift-Tab / ? inspection ---------------------


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    k = Kernel(cwd=str(tmp_path_factory.mktemp("kernel")))
    try:
        k.run("%load_ext mcp_notebook")
        k.run("%mcp add demo -- python -m mcp_notebook.demo")
        yield k
    finally:
        k.close()


def shell_reply(kernel: Kernel, msg_id: str) -> dict[str, Any]:
    while True:
        reply = kernel.kc.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            return dict(reply["content"])


def test_a_kernel_completes_and_inspects_the_functions(kernel: Kernel) -> None:
    outputs = kernel.run(
        "demo = %mcp use demo\ndemo.tools.query_penguins(species='Gentoo', limit=1).structured['count']"
    )
    assert "124" in text_of(outputs), text_of(outputs)
    code = "demo.tools.qu"
    reply = shell_reply(kernel, kernel.kc.complete(code, len(code)))
    assert "demo.tools.query_penguins" in reply["matches"] or "query_penguins" in reply["matches"], reply
    code = "demo.tools.query_penguins("
    reply = shell_reply(kernel, kernel.kc.inspect(code, len(code)))
    text = re.sub(r"\x1b\[[0-9;]*m", "", reply["data"]["text/plain"])  # IPython colours it
    assert reply["found"] and "limit: int = 20" in text and "At most this many rows" in text, text
