"""``server.tools``: one Python function per tool of a server.

``demo.tools.query_penguins("Gentoo", limit=5)`` is ``demo.call_tool("query_penguins",
{"species": "Gentoo", "limit": 5})``, and ``await demo.tools.query_penguins.acall(...)``
is ``await demo.acall_tool(...)``: the functions call those operations, so validation,
approval, progress, cards, tasks and interrupts are theirs. A function has the tool's
signature (``inspect.signature``) and a docstring made from its schemas (schemas.py).

The namespace follows the server's cached tools listing: after ``tools/list_changed`` the
next attribute access lists the tools again and the functions are made anew.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from ..core.text import printable
from ..core.types import CallResult, Tool
from .schemas import docstring, parameters, python_name

__all__ = ["ToolFunction", "Tools", "make_function"]

JSON = dict[str, Any]
ToolFunction = Callable[..., CallResult]


class Listings(Protocol):
    def cached(self, kind: str) -> list[JSON] | None: ...


class Host(Protocol):
    """What the namespace needs of a server (a ``Server``)."""

    @property
    def name(self) -> str: ...

    @property
    def connection(self) -> Listings: ...

    def list_tools(self, *, refresh: bool = False) -> list[Tool]: ...

    def call_tool(self, name: str, arguments: JSON | None = None) -> CallResult: ...

    def acall_tool(self, name: str, arguments: JSON | None = None) -> Coroutine[Any, Any, CallResult]: ...


def make_function(host: Host, tool: Tool, python: str) -> ToolFunction:
    """The function for ``tool``, named ``python``, with ``.acall`` its awaitable twin."""
    params = parameters(tool)
    bind, name = params.arguments, tool.name
    call_tool, acall_tool = host.call_tool, host.acall_tool

    def function(*args: Any, **kwargs: Any) -> CallResult:
        return call_tool(name, bind(args, kwargs))

    def acall(*args: Any, **kwargs: Any) -> Coroutine[Any, Any, CallResult]:
        # Returns the operation's coroutine (as Server.acall_tool does): one frame fewer.
        return acall_tool(name, bind(args, kwargs))

    if hasattr(inspect, "markcoroutinefunction"):  # Python >= 3.12
        inspect.markcoroutinefunction(acall)
    doc = docstring(tool, params, host.name)
    each: tuple[tuple[Any, str], ...] = ((function, python), (acall, f"{python}.acall"))
    for fn, fn_name in each:
        fn.__name__ = python if fn is function else "acall"
        fn.__qualname__ = f"tools.{fn_name}"
        fn.__doc__ = doc
        fn.__signature__ = params.signature
        fn.tool_name = name  # the server's name for it
        fn.server_name = host.name
        fn.tool = tool
    function.acall = acall  # type: ignore[attr-defined]
    return function


class Tools:
    """The tools of one server as Python functions: ``server.tools.NAME(...)`` calls tool
    NAME (``-`` and other characters a Python name cannot hold become ``_``; the function's
    ``tool_name`` is the server's name); ``await server.tools.NAME.acall(...)`` awaits it.
    ``dir()``, tab completion, ``help()`` and ``?`` show them."""

    __slots__ = ("_built", "_host")

    def __init__(self, host: Host) -> None:
        self._host = host
        self._built: tuple[Any, dict[str, ToolFunction]] = (None, {})

    def __repr__(self) -> str:
        key, functions = self._built
        known = f" {len(functions)} functions" if key is not None else ""
        return printable(f"<tools of {self._host.name!r}{known}>")

    def _functions(self) -> dict[str, ToolFunction]:
        """The functions of the current listing, listing the tools first if none is cached."""
        host = self._host
        raws = host.connection.cached("tools")
        key, functions = self._built
        if raws is not None and raws is key:
            return functions
        tools = host.list_tools()
        raws = host.connection.cached("tools")
        functions = {}
        for tool in tools:
            python = python_name(tool.name, functions)
            functions[python] = make_function(host, tool, python)
        self._built = (raws, functions)
        return functions

    def __getattr__(self, attr: str) -> ToolFunction:
        # IPython and others probe for _repr_html_, __wrapped__ and the like: those names
        # look only at the functions already made, never list the tools.
        functions = self._built[1] if attr.startswith("_") else self._functions()
        function = functions.get(attr)
        if function is None:
            close = difflib.get_close_matches(attr, list(functions), n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else "; dir() lists them"
            raise AttributeError(f"server {self._host.name!r} has no tool {attr!r}{hint}")
        return function

    def __dir__(self) -> list[str]:
        try:
            return sorted(self._functions())
        except Exception:  # completion must not fail because the server is down
            return sorted(self._built[1])
