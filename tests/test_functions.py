"""``server.tools``: tools as Python functions (signatures, docstrings, calls, ``.acall``,
``tools/list_changed``), ``server.tool_schemas``, and a real kernel's completion and
inspection of ``demo.tools.``; against server-everything, the demo server and the SDK's server."""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import pickle
import re
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, Optional, Union

import pytest
from IPython.core import oinspect
from IPython.core.interactiveshell import InteractiveShell
from support.kernels import Kernel, kernel_with, text_of
from support.peers import SERVERS
from support.waiting import wait_for

from mcp_notebook import Client, Handlers
from mcp_notebook.core.naming import split_qualified_name
from mcp_notebook.core.types import CallResult
from mcp_notebook.errors import ArgumentError
from mcp_notebook.runtime.functions.functions import Tools

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
    assert inspect.signature(function).return_annotation is CallResult
    assert typing.get_type_hints(function)["return"] is CallResult


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
    assert names == sorted(t.name for t in demo.list_tools() if not t.app_only)  # not penguin_points: its view's
    assert "penguin_points" not in names and "plot_penguins" in names
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
        return str(info.value).split("; fix the argument or ")[0]  # what sends it anyway differs

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


def test_a_missing_argument_says_what_sends_it_anyway(everything: Any) -> None:
    """A function takes no validate=False (a tool may have a parameter of that name): its
    message names what does send the arguments unchecked; call_tool's says validate=False."""
    with pytest.raises(ArgumentError) as info:
        everything.tools.echo()
    message = str(info.value)
    assert message == (
        "tool 'echo': 'message' is required; fix the argument or call "
        "server.call_tool('echo', {...}, validate=False) to send it anyway"
    )
    with pytest.raises(ArgumentError) as awaited:
        asyncio.run(everything.tools.echo.acall())
    assert str(awaited.value) == message
    with pytest.raises(ArgumentError, match="or pass validate=False to send it anyway"):
        everything.call_tool("echo", {})
    assert everything.call_tool("get-sum", {"a": 1}, validate=False).is_error  # what it says works
    # It pickles, as a Dask worker sends it back.
    assert str(pickle.loads(pickle.dumps(info.value))) == message


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


# Tool names a server may choose that clash with each other, with keywords, with what IPython
# looks up on any object (_repr_html_, _ipython_display_, getdoc…) and with the namespace's own.
CLASHING = ["a-b", "a_b", "class", "class_", "2x", "_functions", "_host", "_built", "__class__", "getdoc"]
CLASHING += ["_repr_html_", "_ipython_display_", "_repr_mimebundle_", "_repr_markdown_", "x y", "x_y_2"]
PARAMS = {
    "name": "params",
    "inputSchema": {
        "type": "object",
        "properties": {n: {"type": "integer"} for n in ("a-b", "a_b", "class", "_x", "2x")},
        "required": ["a-b"],
    },
}
NAMES = {  # Python name -> the server's: a Python name is kept, made ones are sorted first come
    "a_b": "a_b",
    "a_b_2": "a-b",
    "class_": "class_",
    "class__2": "class",
    "tool_2x": "2x",
    "tool_functions": "_functions",
    "tool_host": "_host",
    "tool_built": "_built",
    "tool_class__": "__class__",
    "getdoc_": "getdoc",
    "tool_repr_html_": "_repr_html_",
    "tool_ipython_display_": "_ipython_display_",
    "tool_repr_mimebundle_": "_repr_mimebundle_",
    "tool_repr_markdown_": "_repr_markdown_",
    "x_y_2": "x_y_2",
    "x_y": "x y",
    "params": "params",
}


@pytest.mark.parametrize("order", ["listed", "reversed"])
def test_clashing_names_do_not_depend_on_the_listing_order(client: Client, order: str) -> None:
    names = [*CLASHING, json.dumps(PARAMS)]
    server = client.add(
        "clash", sys.executable, [str(SERVERS / "colliding.py"), "L", *names[:: 1 if order == "listed" else -1]]
    )
    assert {name: getattr(server.tools, name).tool_name for name in dir(server.tools)} == NAMES
    for name, tool in NAMES.items():
        if name != "params":
            assert getattr(server.tools, name)().text == f"L:{tool}"
    # Parameters the same way: a_b is the schema's a_b; a-b is a_b_2 (required: positional).
    params = server.tools.params
    assert list(inspect.signature(params).parameters) == ["a_b_2", "a_b", "class_", "_x", "_2x"]
    sent = params(1, a_b=2, class_=3, _x=4, _2x=5).structured["arguments"]
    assert sent == {"a-b": 1, "a_b": 2, "class": 3, "_x": 4, "2x": 5}
    assert "a_b_2 (sent as 'a-b')" in params.__doc__ and "\na_b : int" in params.__doc__
    # The namespace's own attributes are its own; names with "_" are never tools.
    assert isinstance(server.tools._host, type(server)) and callable(server.tools._functions)
    for attr in ("_repr_html_", "_ipython_display_", "__wrapped__", "_x"):
        assert not hasattr(server.tools, attr)


def test_displaying_the_namespace_calls_no_tool(client: Client) -> None:
    """IPython looks up _repr_html_, _ipython_display_, _repr_mimebundle_… on what it shows,
    and ``obj?`` calls ``obj.getdoc()``: none of them may reach a tool of those names."""
    server = client.add("shown", sys.executable, [str(SERVERS / "colliding.py"), "L", *CLASHING])
    assert len(dir(server.tools)) == len(CLASHING)  # the functions are made (as Tab completion does)
    shell = InteractiveShell.instance()
    data, metadata = shell.display_formatter.format(server.tools)
    doc = oinspect.getdoc(server.tools)
    shell.inspector.info(server.tools, "tools")
    assert server.last_arguments == {}  # no call was sent
    assert data == {"text/plain": "<tools of 'shown' 16 functions>"} and metadata == {}
    assert doc == inspect.getdoc(Tools)
    assert server.tools.tool_repr_html_().text == "L:_repr_html_"
    assert server.last_arguments == {"_repr_html_": {}}


def test_a_namespace_without_a_server_raises_attribute_error(demo: Any) -> None:
    """Made without __init__ (as copy and pickle do), it has no slots: AttributeError, not
    endless recursion through __getattr__."""
    empty = Tools.__new__(Tools)
    with pytest.raises(AttributeError):
        empty.query_penguins  # noqa: B018
    assert not hasattr(empty, "_repr_html_")
    copied = copy.copy(demo.tools)
    assert len(copied.query_penguins(limit=1).structured["rows"]) == 1


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
    setup = "%load_ext mcp_notebook\n%mcp add demo -- python -m mcp_notebook.demo"
    with kernel_with("python3", tmp_path_factory.mktemp("kernel"), setup, ["demo"]) as k:
        yield k


def shell_reply(kernel: Kernel, msg_id: str) -> dict[str, Any]:
    while True:
        reply = kernel.kc.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            return dict(reply["content"])


@pytest.mark.kernel
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
