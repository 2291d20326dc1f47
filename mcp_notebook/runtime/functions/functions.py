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
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from ...core.safety.text import printable
from ...core.types import CallResult, Tool
from ...errors import InvalidArguments
from .schemas import docstring, parameters, python_names

__all__ = ["RESERVED", "ToolFunction", "Tools", "make_function"]

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

    # Validation's "pass validate=False" means call_tool's keyword, which a function has not
    # got (a tool's own parameter may have that name): say what does send them unchecked.
    unchecked = f"call server.call_tool({name!r}, {{...}}, validate=False)"

    def function(*args: Any, **kwargs: Any) -> CallResult:
        try:
            return call_tool(name, bind(args, kwargs))
        except InvalidArguments as e:
            raise e.unchecked_by(unchecked) from None

    async def acall(*args: Any, **kwargs: Any) -> CallResult:
        try:
            return await acall_tool(name, bind(args, kwargs))
        except InvalidArguments as e:
            raise e.unchecked_by(unchecked) from None

    doc = docstring(tool, params, host.name)
    annotations = {p.name: p.annotation for p in params.signature.parameters.values() if p.annotation is not p.empty}
    annotations["return"] = CallResult
    each: tuple[tuple[Any, str], ...] = ((function, python), (acall, f"{python}.acall"))
    for fn, fn_name in each:
        fn.__name__ = python if fn is function else "acall"
        fn.__qualname__ = f"tools.{fn_name}"
        fn.__doc__ = doc
        fn.__signature__ = params.signature
        fn.__annotations__ = annotations
        fn.tool_name = name  # the server's name for it
        fn.server_name = host.name
        fn.tool = tool
    function.acall = acall  # type: ignore[attr-defined]
    return function


class Tools:
    """The tools of one server as Python functions: ``server.tools.NAME(...)`` calls tool
    NAME; ``await server.tools.NAME.acall(...)`` awaits it. A tool's name that is a Python
    name is kept; others are made one (``get-sum`` -> ``get_sum``, ``class`` -> ``class_``,
    ``_x`` -> ``tool_x``; see ``schemas.python_names``): no function's name starts with
    ``_``, so what IPython probes for (``_repr_html_``, ``_ipython_display_``…) is never a
    tool. The function's ``tool_name`` is the server's name. ``dir()``, tab completion,
    ``help()`` and ``?`` show them."""

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
        tools = [tool for tool in host.list_tools() if not tool.app_only]  # those are its app's (MCP Apps)
        raws = host.connection.cached("tools")
        names = python_names((tool.name for tool in tools), prefix="tool_", reserved=RESERVED)
        functions = {names[tool.name]: make_function(host, tool, names[tool.name]) for tool in tools}
        self._built = (raws, functions)
        return functions

    def __getattr__(self, attr: str) -> ToolFunction:
        # Only names no lookup found come here. One starting with "_" is never a tool: IPython
        # and others probe for _repr_html_, __wrapped__ and the like (without listing the
        # tools), and copy or pickle ask for the slots before they are set.
        if attr.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")
        functions = self._functions()
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


# Names a tool's function cannot have: the namespace's own (were it to get public ones) and
# those IPython calls on any object it inspects (``obj?`` calls ``obj.getdoc()``).
RESERVED = frozenset(a for a in dir(Tools) if not a.startswith("_")) | {"getdoc"}
