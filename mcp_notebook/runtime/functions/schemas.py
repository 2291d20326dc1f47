"""What a tool's JSON Schemas say in Python's terms: names, annotations, a signature, a
docstring, and the function-calling schemas model SDKs take.

Everything here reads a tool's listing entry (untrusted): odd schemas give plainer
annotations (``Any``), never an error.
"""

from __future__ import annotations

import inspect
import keyword
import re
from collections.abc import Collection, Iterable
from types import GenericAlias
from typing import Any, Literal, Union, get_args, get_origin

from ...core.safety.text import printable
from ...core.types import CallResult, Tool
from ...errors import ArgumentError

__all__ = ["FORMATS", "Parameters", "annotation", "docstring", "parameters", "python_names", "readable", "tool_schema"]

JSON = dict[str, Any]
FORMATS = ("openai", "anthropic")
_UNSAFE = re.compile(r"\W", re.ASCII)
_SIMPLE: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict}
# Constraint keywords worth a mention in the docstring, as they read.
_CONSTRAINTS = (
    ("minimum", ">="),
    ("maximum", "<="),
    ("exclusiveMinimum", ">"),
    ("exclusiveMaximum", "<"),
    ("minLength", "min length"),
    ("maxLength", "max length"),
    ("pattern", "pattern"),
    ("format", "format"),
    ("minItems", "min items"),
    ("maxItems", "max items"),
)
_HINTS = (
    ("readOnlyHint", "read-only"),
    ("destructiveHint", "destructive"),
    ("idempotentHint", "idempotent"),
    ("openWorldHint", "open world"),
)


def python_names(names: Iterable[str], *, prefix: str = "", reserved: Collection[str] = ()) -> dict[str, str]:
    """Each of ``names`` as a Python name, the same whatever order they come in. A name that
    already is one (ASCII, not a keyword, not ``reserved``; with a ``prefix``, not starting
    with ``_``) keeps it. The others are made one: characters a name cannot hold become ``_``
    (``get-sum`` -> ``get_sum``); a keyword or reserved name gets a trailing ``_`` (``class``
    -> ``class_``); with a ``prefix``, one starting with ``_`` or a digit gets it instead of
    its leading ``_`` (``_repr_html_`` -> ``tool_repr_html_``), else a digit gets ``_``. A
    made name that is taken gets ``_2``, ``_3``…, in the sorted order of the server's names."""
    unique = [n for n in dict.fromkeys(names) if isinstance(n, str)]
    out = {n: n for n in unique if _plain(n, prefix, reserved)}
    taken = set(out.values()) | set(reserved)
    for name in sorted(n for n in unique if n not in out):
        safe = _UNSAFE.sub("_", name)
        if prefix and (not safe or safe[0] == "_" or safe[0].isdigit()):
            safe = prefix + safe.lstrip("_")
        elif not safe or safe[0].isdigit():
            safe = f"_{safe}"
        if keyword.iskeyword(safe) or safe in reserved:
            safe = f"{safe}_"
        candidate, n = safe, 1
        while candidate in taken:
            n += 1
            candidate = f"{safe}_{n}"
        taken.add(candidate)
        out[name] = candidate
    return out


def _plain(name: str, prefix: str, reserved: Collection[str]) -> bool:
    """Whether ``name`` is a Python name as it is (non-ASCII letters aside: they can look like
    others, and Python reads a name through NFKC, so some could not be typed back)."""
    return (
        name.isascii()
        and name.isidentifier()
        and not keyword.iskeyword(name)
        and name not in reserved
        and not (prefix and name.startswith("_"))
    )


def annotation(schema: Any) -> Any:
    """The Python annotation of a JSON Schema: ``str``, ``int``, ``float``, ``bool``,
    ``list[...]``, ``dict``, ``Literal[...]`` for an enum, ``X | None`` when null is allowed."""
    if not isinstance(schema, dict):
        return Any
    enum = schema.get("enum")
    if "const" in schema:
        enum = [schema["const"]]
    if isinstance(enum, list) and enum and all(isinstance(v, (str, int, bool)) or v is None for v in enum):
        values = tuple(v for v in enum if v is not None)
        base: Any = Literal[values] if values else type(None)
        return base | None if None in enum and values else base
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return _union([annotation(o) for o in options])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([annotation({**schema, "type": k}) for k in kind])
    if kind == "array":
        items = schema.get("items")
        return GenericAlias(list, (annotation(items),)) if isinstance(items, dict) else list
    if kind == "null":
        return type(None)
    return _SIMPLE.get(kind, Any) if isinstance(kind, str) else Any


def _union(types: list[Any]) -> Any:
    if Any in types:
        return Any
    unique = list(dict.fromkeys(types))
    return unique[0] if len(unique) == 1 else Union[tuple(unique)]  # noqa: UP007 (made at run time)


class Parameters:
    """A tool's parameters as Python sees them: the signature, and how a call's positional and
    keyword arguments become the ``arguments`` dict (original names, only what was given)."""

    __slots__ = ("known", "omit_none", "original", "positional", "signature", "tool")

    def __init__(
        self,
        tool: str,
        signature: inspect.Signature,
        original: dict[str, str],
        omit_none: frozenset[str],
        known: frozenset[str] | None,
    ):
        self.tool = tool
        self.known = known  # the names it takes; None: any (the schema allows more)
        self.signature = signature
        self.original = original  # Python name -> schema name, only where they differ
        self.positional = tuple(
            original.get(p.name, p.name)
            for p in signature.parameters.values()
            if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
        self.omit_none = omit_none  # optional, not nullable: None means "not given"

    def arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> JSON:
        """The call's arguments by their schema names. A keyword the signature lacks is an
        error unless the schema says it takes more (``additionalProperties``); the values
        are checked by ``call_tool``'s validation."""
        positional = self.positional
        if len(args) > len(positional):
            raise ArgumentError(
                f"tool {self.tool!r} takes {len(positional)} positional argument(s) "
                f"({', '.join(positional) or 'none'}) but {len(args)} were given; pass the others by keyword"
            )
        out = dict(zip(positional, args, strict=False))
        original, omit = self.original, self.omit_none
        for key, value in kwargs.items():
            name = original.get(key, key)
            if self.known is not None and name not in self.known:
                raise ArgumentError(
                    f"tool {self.tool!r}: unknown argument {key!r}; it takes "
                    f"{', '.join(self.signature.parameters) or 'no arguments'}"
                )
            if name in out:
                raise ArgumentError(f"tool {self.tool!r} got {key!r} twice (by position and by keyword)")
            if value is None and name in omit:
                continue
            out[name] = value
        return out


def _nullable(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return True
    kind = schema.get("type")
    options = schema.get("anyOf") or schema.get("oneOf") or []
    return (
        (kind is None and not options)
        or kind == "null"
        or (isinstance(kind, list) and "null" in kind)
        or any(isinstance(o, dict) and o.get("type") == "null" for o in options)
        or None in (schema.get("enum") or [])
    )


def parameters(tool: Tool) -> Parameters:
    """Required parameters positional-or-keyword in schema order, optional ones keyword-only
    with the schema's default (else None: not sent)."""
    schema = tool.input_schema
    props = schema.get("properties")
    props = props if isinstance(props, dict) else {}
    required = schema.get("required")
    required = list(dict.fromkeys(r for r in required if isinstance(r, str))) if isinstance(required, list) else []
    # Required ones (the schema may not describe them all: still asked for), then the rest.
    order = required + [p for p in props if isinstance(p, str) and p not in required]
    names = python_names(order)
    params: list[inspect.Parameter] = []
    original: dict[str, str] = {}
    omit: set[str] = set()
    for name in order:
        safe = names[name]
        if safe != name:
            original[safe] = name
        prop = props.get(name)
        hint = annotation(prop) if name in props else inspect.Parameter.empty
        if name in required:
            params.append(inspect.Parameter(safe, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=hint))
            continue
        has_default = isinstance(prop, dict) and "default" in prop
        default = prop["default"] if isinstance(prop, dict) and has_default else None
        if not has_default and not _nullable(prop):
            omit.add(name)
            hint = hint | None if hint is not Any else Any
        params.append(inspect.Parameter(safe, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint))
    signature = inspect.Signature(params, return_annotation=CallResult)
    extra = schema.get("additionalProperties")
    known = None if extra is True or isinstance(extra, dict) else frozenset(props) | frozenset(required)
    return Parameters(tool.name, signature, original, frozenset(omit), known)


def readable(hint: Any) -> str:
    """An annotation as a person reads it: ``'a' | 'b' | None``, ``list[int]``, ``str``."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is type(None):
        return "None"
    if origin is Literal:
        return " | ".join(repr(a) for a in args)
    if origin is Union:
        return " | ".join(readable(a) for a in args)
    if origin is list:
        return f"list[{readable(args[0])}]" if args else "list"
    if hint is Any:
        return "any"
    return getattr(hint, "__name__", str(hint))


def _constraints(prop: JSON) -> str:
    out = [
        f"{label} {prop[key]!r}" if label == "pattern" else f"{label} {prop[key]}"
        for key, label in _CONSTRAINTS
        if key in prop
    ]
    enum = prop.get("enum")
    if isinstance(enum, list):
        out.append("one of " + ", ".join(repr(v) for v in enum))
    if "default" in prop:
        out.append(f"default {prop['default']!r}")
    return "; ".join(out)


def docstring(tool: Tool, params: Parameters, server: str) -> str:
    """Title, description, each parameter (its description and constraints), the tool's
    annotations and its output schema: what ``help()`` and ``?`` show (printable)."""
    lines: list[str] = []
    head = tool.title or tool.name
    lines.append(f"{head} (tool {tool.name!r} of server {server!r})")
    if tool.description:
        lines += ["", tool.description.strip()]
    props = tool.input_schema.get("properties")
    props = props if isinstance(props, dict) else {}
    if params.signature.parameters:
        lines += ["", "Parameters", "----------"]
        for p in params.signature.parameters.values():
            name = params.original.get(p.name, p.name)
            prop = props.get(name)
            prop = prop if isinstance(prop, dict) else {}
            kind = readable(annotation(prop)) if prop else "any"
            shown = p.name if name == p.name else f"{p.name} (sent as {name!r})"
            optional = "" if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD else ", optional"
            lines.append(f"{shown} : {kind}{optional}")
            for text in (str(prop.get("description") or "").strip(), _constraints(prop)):
                if text:
                    lines += ["    " + line for line in text.splitlines()]
    hints = [
        label if bool(tool.annotations.get(key)) else f"not {label}"
        for key, label in _HINTS
        if isinstance(tool.annotations.get(key), bool)
    ]
    if hints:
        lines += ["", "Annotations: " + ", ".join(hints) + " (as the server says; untrusted)"]
    if tool.output_schema:
        lines += ["", "Returns", "-------", "CallResult; .structured follows this output schema:"]
        out_props = tool.output_schema.get("properties")
        if isinstance(out_props, dict):
            for name, prop in out_props.items():
                prop = prop if isinstance(prop, dict) else {}
                desc = str(prop.get("description") or "").strip()
                lines.append(f"    {name} : {prop.get('type', 'any')}" + (f" ({desc})" if desc else ""))
    else:
        lines += ["", "Returns", "-------", "CallResult (.text, .structured, .is_error, .to_frame())"]
    lines += ["", "Awaitable twin: await <this function>.acall(...)."]
    # All of it but the layout is the server's text, read on a terminal by help() and ?.
    return printable("\n".join(lines))


def tool_schema(tool: Tool, format: str) -> JSON:
    """One tool as a model SDK's function-calling schema, named by its qualified name
    (``mcp__server__tool``: safe for every SDK's name rule, and it decodes back to the pair)."""
    description = tool.description or tool.title or tool.name
    if format == "openai":
        return {
            "type": "function",
            "function": {"name": tool.qualified_name, "description": description, "parameters": tool.input_schema},
        }
    if format == "anthropic":
        return {"name": tool.qualified_name, "description": description, "input_schema": tool.input_schema}
    raise ArgumentError(f"format {format!r}: not one of {', '.join(FORMATS)}")
