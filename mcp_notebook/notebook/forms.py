"""Forms a person fills in to try a tool or a resource template (``%mcp form``), as the MCP
Inspector's tools panel does: one input per parameter, built from the tool's inputSchema
with the elicitation card's fields (fields.py), extended to nested objects, lists and, for
what a field cannot show, JSON typed in a text area.

A form runs its call when **Run** is clicked: after the cell that showed it has finished,
in the kernel's handler of the click. There it is awaited in a task of the kernel's event
loop, so that the kernel stays free for the clicks the call may need (an approval, a
server's question); with no running loop it runs blocking. The result shows below the
form, after the server's log lines and any page it needs visited, and is stored in a
variable of the notebook.

What a server sent (titles, descriptions) is shown through ``escape`` / ``printable``, and
its schema is untrusted: what a field cannot show (a model that contains itself, nesting
past reason, a default or a last value of another type) is typed as JSON or not used, never
an error while the form is built.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import ipywidgets as w

from ..commands.steps import AWAITING, BLOCKING, Step, Taker
from ..core.safety.text import escape, printable
from ..errors import InvalidArguments, MCPError
from ..runtime.steps import drive
from .fields import Field, fits, options
from .modes import OUTSIDE_CELLS
from .places import SHOWN_IN, OutputPlace

__all__ = ["OMIT", "ArrayNode", "Form", "JsonNode", "Node", "ObjectNode", "ScalarNode", "build", "resolve"]

OMIT: Any = type("Omit", (), {"__repr__": lambda self: "OMIT"})()  # a value left out of the arguments
_SCALARS = ("string", "integer", "number", "boolean")
_FAINT = "color:var(--jp-content-font-color2, #666);font-size:0.85em"  # a theme's variable: both themes read well
_ERROR = "<span style='color:#d33;font-size:0.85em'>{}</span>"
_NEST = {"border_left": "2px solid #ddd", "padding": "0 0 0 8px", "margin": "2px 0 2px 6px", "width": "auto"}
_BOX = {"border": "1px solid #bbb", "padding": "6px 10px", "margin": "4px 0", "width": "auto"}
# Constraints a field compares a value with: a number, or (as a broken schema may say) ignored.
_NUMBERS = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems"}
)
_TEXTS = ("format", "pattern")
_DEPTH = 8  # levels of nested objects and lists shown as fields; deeper ones are typed as JSON
_CHOICES = 1000  # more choices than a dropdown can usefully show (or send): typed, and the server checks
_CHOICE_KEYS = ("enum", "enumNames", "oneOf", "anyOf")


def resolve(schema: Any, root: dict[str, Any], followed: list[str] | None = None) -> dict[str, Any]:
    """A property's schema as a field needs it: ``$ref`` into the root's ``$defs`` followed
    (each added to ``followed``), and a nullable one (``anyOf: [X, {type: null}]``,
    ``type: [X, "null"]``) made X, with a ``null`` default dropped (nothing given means left
    out). A bound or count that is not a number (``minItems: "2"``), or a format or pattern
    that is not text, is left out: the field could not compare a value with it (the server
    checks what it gets anyway). A description that is not text is shown as text."""
    if not isinstance(schema, dict):
        return {}
    seen = 0
    while isinstance(schema.get("$ref"), str) and seen < 20:  # a cycle of references ends somewhere
        seen += 1
        ref = schema["$ref"]
        if followed is not None:
            followed.append(ref)
        target: Any = root
        for part in ref.removeprefix("#/").split("/") if ref.startswith("#/") else []:
            target = target.get(part) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            break
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and options(schema) is None:
            real = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
            if len(real) == 1 and len(real) < len(branches):
                outer = {k: v for k, v in schema.items() if k != key}
                schema = {**resolve(real[0], root, followed), **outer}
    kind = schema.get("type")
    if isinstance(kind, list):
        real_kinds = [k for k in kind if k != "null"]
        schema = {**schema, "type": real_kinds[0] if len(real_kinds) == 1 else None}
    if "default" in schema and schema["default"] is None:
        schema = {k: v for k, v in schema.items() if k != "default"}
    odd = [k for k in _NUMBERS if k in schema and not _number(schema[k])]
    odd += [k for k in _TEXTS if k in schema and not isinstance(schema[k], str)]
    if odd:
        schema = {k: v for k, v in schema.items() if k not in odd}
    if schema.get("description") is not None and not isinstance(schema["description"], str):
        schema = {**schema, "description": str(schema["description"])}
    resolved: dict[str, Any] = schema
    return resolved


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def constraints(schema: dict[str, Any]) -> str:
    """What a field's schema allows, in a few words (shown under it)."""
    parts = []
    low, high = (
        schema.get("minimum", schema.get("exclusiveMinimum")),
        schema.get("maximum", schema.get("exclusiveMaximum")),
    )
    if low is not None and high is not None:
        parts.append(f"from {low} to {high}")
    elif low is not None:
        parts.append(f"at least {low}")
    elif high is not None:
        parts.append(f"at most {high}")
    if "minLength" in schema or "maxLength" in schema:
        parts.append(f"{schema.get('minLength', 0)} to {schema.get('maxLength', '…')} characters")
    if "format" in schema:
        parts.append(f"format {schema['format']}")
    if "pattern" in schema:
        parts.append(f"pattern {schema['pattern']}")
    return "; ".join(str(p) for p in parts)


class Node:
    """One value of the form: ``widget`` to show, ``collect()`` its value (OMIT: left out)
    and whether it is valid, its problems shown beside it."""

    widget: w.Widget
    name: str

    def collect(self) -> tuple[Any, bool]:
        raise NotImplementedError

    def blank(self) -> bool:
        """Nothing was filled in (defaults aside): an optional object around it is left out."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class ScalarNode(Node):
    """A string, number, boolean, choice or multi-choice: the elicitation card's field."""

    def __init__(self, name: str, schema: dict[str, Any], required: bool, initial: Any = OMIT) -> None:
        self.name = name
        self.field = Field(name, schema, required)
        if initial is not OMIT and initial is not None and fits(self.field.schema, initial):  # else build() types it
            self.field.input.value = tuple(initial) if isinstance(initial, list) else initial
            self.field.touched = True
        hint = constraints(schema)
        if hint:
            shown = self.field.help.value
            self.field.help.value = (shown + " " if shown else "") + (f"<span style='{_FAINT}'>({escape(hint)})</span>")
        self.widget = self.field.widget

    def blank(self) -> bool:
        return not self.field.touched

    def collect(self) -> tuple[Any, bool]:
        value, error = self.field.value()
        self.field.error.value = _ERROR.format(escape(error)) if error else ""
        if error:
            return OMIT, False
        return (OMIT if value is None else value), True


class JsonNode(Node):
    """A value no field shows (a union, a map, no type): typed as JSON."""

    def __init__(self, name: str, schema: dict[str, Any], required: bool, initial: Any = OMIT) -> None:
        self.name, self.required = name, required
        start = initial if initial is not OMIT else schema.get("default", OMIT)
        try:
            shown = "" if start is OMIT else json.dumps(start, ensure_ascii=False)
        except (TypeError, ValueError):  # not JSON (a value given from Python): not prefilled
            shown = ""
        label = printable(str(schema.get("title") or name)) + (" *" if required else "") + " (JSON)"
        self.input = w.Textarea(
            value=shown,
            description=label,
            style={"description_width": "initial"},
            layout=w.Layout(width="auto"),
        )
        described = schema.get("description")
        self.help = w.HTML(f"<span style='{_FAINT}'>{escape(described)}</span>" if described else "")
        self.error = w.HTML()
        self.widget = w.VBox([self.input, self.help, self.error])

    def blank(self) -> bool:
        return not self.input.value.strip()

    def collect(self) -> tuple[Any, bool]:
        text = self.input.value.strip()
        self.error.value = ""
        if not text:
            if self.required:
                self.error.value = _ERROR.format("required")
                return OMIT, False
            return OMIT, True
        try:
            return json.loads(text), True
        except ValueError as e:
            self.error.value = _ERROR.format(escape(f"not JSON: {e}"))
            return OMIT, False


class ObjectNode(Node):
    """An object with properties: a field for each, indented under its label."""

    def __init__(
        self,
        name: str,
        schema: dict[str, Any],
        required: bool,
        root: dict[str, Any],
        initial: Any = OMIT,
        top: bool = False,
        *,
        depth: int = 0,
        refs: frozenset[str] = frozenset(),
    ) -> None:
        self.name, self.required = name, required
        given = initial if isinstance(initial, dict) else {}
        properties, needed = schema.get("properties"), schema.get("required")
        needed = {n for n in needed if isinstance(n, str)} if isinstance(needed, list) else set()
        self.children = [
            build(key, sub, key in needed, root, given.get(key, OMIT), depth=depth + 1, refs=refs)
            for key, sub in (properties.items() if isinstance(properties, dict) else ())
        ]
        self.error = w.HTML()
        if top:
            self.widget = w.VBox([c.widget for c in self.children] + [self.error])
        else:
            head = _head(schema, name, required)
            self.widget = w.VBox(
                [head, w.VBox([c.widget for c in self.children], layout=w.Layout(**_NEST)), self.error]
            )

    def blank(self) -> bool:
        return all(child.blank() for child in self.children)

    def collect(self) -> tuple[Any, bool]:
        if not self.required and self.name and self.blank():  # an optional object nobody filled in
            return OMIT, True
        values, ok = {}, True
        for child in self.children:
            value, good = child.collect()
            ok = ok and good
            if value is not OMIT:
                values[child.name] = value
        return values, ok


class ArrayNode(Node):
    """A list of items of any kind: one input per item, with + add and a button to remove each."""

    def __init__(
        self,
        name: str,
        schema: dict[str, Any],
        required: bool,
        root: dict[str, Any],
        initial: Any = OMIT,
        *,
        depth: int = 0,
        refs: frozenset[str] = frozenset(),
    ) -> None:
        self.name, self.required, self.schema, self.root = name, required, schema, root
        self.depth, self.refs = depth, refs
        self.items_schema = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        hint = "; ".join(
            p for p in (f"at least {schema['minItems']} items" if "minItems" in schema else "",
                        f"at most {schema['maxItems']} items" if "maxItems" in schema else "") if p
        )  # fmt: skip
        self.head = _head(schema, name, required, f"({hint})" if hint else "")
        self.rows: list[tuple[Node, w.HBox]] = []
        self.list = w.VBox(layout=w.Layout(**_NEST))
        self.add = w.Button(description="+ add", layout=w.Layout(width="auto"))
        self.add.on_click(lambda _: self.append(OMIT))
        self.error = w.HTML()
        default = schema.get("default")
        start: list[Any] = initial if isinstance(initial, list) else default if isinstance(default, list) else []
        for item in start:
            self.append(item)
        self.widget = w.VBox([self.head, self.list, self.add, self.error])

    def append(self, initial: Any) -> Node:
        item = f"{self.name}[{len(self.rows)}]"
        node = build(item, self.items_schema, True, self.root, initial, depth=self.depth + 1, refs=self.refs)
        remove = w.Button(description="✕", tooltip="remove this item", layout=w.Layout(width="2.5em"))
        row = w.HBox([node.widget, remove])
        self.rows.append((node, row))
        remove.on_click(lambda _: self.remove(row))
        self.list.children = tuple(r for _, r in self.rows)
        return node

    def remove(self, row: w.HBox) -> None:
        self.rows = [(n, r) for n, r in self.rows if r is not row]
        self.list.children = tuple(r for _, r in self.rows)

    def blank(self) -> bool:
        return not self.rows

    def collect(self) -> tuple[Any, bool]:
        values, ok = [], True
        for node, _ in self.rows:
            value, good = node.collect()
            ok = ok and good
            if value is not OMIT:
                values.append(value)
        self.error.value = ""
        s = self.schema
        if ok and "minItems" in s and len(values) < s["minItems"]:
            self.error.value, ok = _ERROR.format(escape(f"at least {s['minItems']} items")), False
        if ok and "maxItems" in s and len(values) > s["maxItems"]:
            self.error.value, ok = _ERROR.format(escape(f"at most {s['maxItems']} items")), False
        if not self.rows and not self.required:
            return OMIT, ok
        return values, ok


def build(
    name: str,
    schema: Any,
    required: bool,
    root: dict[str, Any],
    initial: Any = OMIT,
    *,
    depth: int = 1,
    refs: frozenset[str] = frozenset(),
) -> Node:
    """The input for one value of this schema (``root``: where ``$ref`` points into;
    ``depth``: how deep in the form; ``refs``: the references followed on the way here).

    A value given (``initial``: the last call's) that the field cannot hold as it is is
    shown typed as JSON, so that Run sends what was sent last unless the person changes it."""
    followed: list[str] = []
    s = resolve(schema, root, followed)
    if depth > _DEPTH or refs.intersection(followed):  # a model that contains itself would never end
        return JsonNode(name, s, required, initial)
    refs = refs.union(followed)
    given = initial is not OMIT and initial is not None
    kind = s.get("type")
    if kind == "object" or (kind is None and isinstance(s.get("properties"), dict)):
        if isinstance(s.get("properties"), dict) and s["properties"] and (not given or isinstance(initial, dict)):
            return ObjectNode(name, s, required, root, initial, depth=depth, refs=refs)
        return JsonNode(name, s, required, initial)  # a map with free keys
    s = _few_choices(s)
    if kind == "array":
        items = _few_choices(resolve(s.get("items"), root))
        if options(items) is not None:  # a multi-select, as in elicitation
            multi = {**s, "items": items}
            if not given or fits(multi, initial):
                return ScalarNode(name, multi, required, initial)
        elif not given or isinstance(initial, list):
            return ArrayNode(name, s, required, root, initial, depth=depth, refs=refs)
        return JsonNode(name, s, required, initial)
    if (kind in _SCALARS or options(s) is not None) and (not given or fits(s, initial)):
        return ScalarNode(name, s, required, initial)
    return JsonNode(name, s, required, initial)


def _few_choices(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema``, or without its choices when they are too many for a dropdown (said in
    its description): the value is typed, and the server checks it."""
    count = max((len(schema[k]) for k in ("enum", "oneOf", "anyOf") if isinstance(schema.get(k), list)), default=0)
    if count <= _CHOICES or options(schema) is None:
        return schema
    described = str(schema.get("description") or "")
    plain = {k: v for k, v in schema.items() if k not in _CHOICE_KEYS}
    return {**plain, "description": f"{described} (one of {count} choices)".strip()}


class Form:
    """A form for one operation: fields from a schema, **Run**, the result below.

    ``call(values)`` gives the step that runs it (a tool call, a resource read); the
    result is stored in ``namespace[variable]``."""

    def __init__(
        self,
        title: str,
        description: str | None,
        schema: dict[str, Any],
        initial: dict[str, Any] | None,
        call: Callable[[dict[str, Any]], Step[Any]],
        namespace: dict[str, Any],
        variable: str,
    ) -> None:
        self.call, self.namespace, self.variable = call, namespace, variable
        schema = schema if isinstance(schema, dict) else {}
        self.root = ObjectNode("", schema, True, schema, initial or {}, top=True)
        described = f"<div style='color:#555'>{escape(description)}</div>" if description else ""
        head = w.HTML(f"<b>🧪 {escape(title)}</b>{described}")
        self.button = w.Button(description="Run", button_style="primary")
        self.button.on_click(lambda _: self.click())
        # Shown while a Run's task runs: the only way to stop it (no cell to interrupt).
        self.stop = w.Button(description="Cancel", layout=w.Layout(display="none"))
        self.stop.on_click(lambda _: self.task.cancel() if self.task is not None else None)
        self.status = w.HTML()
        self.output = w.Output()
        self.result: Any = None
        self.task: asyncio.Task[Any] | None = None
        buttons = w.HBox([self.button, self.stop])
        self.widget = w.VBox([head, self.root.widget, buttons, self.status, self.output], layout=w.Layout(**_BOX))

    def __repr__(self) -> str:
        return f"<Form {self.variable!r}>"

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def values(self) -> dict[str, Any] | None:
        """The values filled in, or None (the problems are marked)."""
        values, ok = self.root.collect()
        if not ok:
            self.status.value = "<i>fix the marked fields</i>"
            return None
        return values if isinstance(values, dict) else {}

    def click(self) -> None:
        """Run: in a task of the kernel's loop where there is one, else blocking."""
        values = self.values()
        if values is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            drive(self.run(BLOCKING, values))
            return
        self.task = loop.create_task(self.run_outside_cells(values))

    async def run_outside_cells(self, values: dict[str, Any]) -> Any:
        """Run awaited in a task of the kernel's loop, started by a click: the questions the
        call asks are cards whose clicks reach this task (modes.py)."""
        OUTSIDE_CELLS.set(True)  # in this task's own context only
        self.stop.layout.display = None
        try:
            return await self.run(AWAITING, values)
        finally:
            self.stop.layout.display = "none"

    async def run(self, taker: Taker, values: dict[str, Any]) -> Any:
        """Run the call; its cards, bars, log lines and pages to visit show in the form's
        output, then its result (written as widget state: see OutputPlace; a capture
        reached no output from a click's task, so the result and any approval card were
        lost, and Run waited for ever)."""
        self.button.disabled = True
        self.status.value = "<i>running…</i>"
        shown = OutputPlace(self.output)
        failed: BaseException | None = None
        token = SHOWN_IN.set(shown)
        try:
            result = await taker.take(self.call(values))
        except (Exception, asyncio.CancelledError, KeyboardInterrupt) as e:
            failed = e  # a mistake in the values or the call's error: said, not raised
        finally:
            SHOWN_IN.reset(token)
            self.button.disabled = False
        shown.end()
        if isinstance(failed, asyncio.CancelledError):
            self.status.value = "<i>cancelled; the server was told</i>"
            return None
        if failed is not None:
            self.status.value = _ERROR.format(escape(_said(failed)))
            return None
        self.result = self.namespace[self.variable] = result
        self.output.append_display_data(result)
        self.status.value = f"<i>✓ done; the result is in <code>{escape(self.variable)}</code></i>"
        return result


def _head(schema: dict[str, Any], name: str, required: bool, note: str = "") -> w.HTML:
    """A nested object's or list's heading: its title (* if required), then its description
    and ``note`` in grey; the server's text escaped."""
    label = printable(str(schema.get("title") or name)) + (" *" if required else "")
    described = " ".join(x for x in (str(schema.get("description") or ""), note) if x)
    grey = f" <span style='{_FAINT}'>{escape(described)}</span>" if described else ""
    return w.HTML(f"<b>{escape(label)}</b>{grey}")


def _said(e: BaseException) -> str:
    """A failed Run in one line. Invalid arguments say what to fix, not how to send them
    anyway (a form cannot)."""
    if isinstance(e, InvalidArguments):
        return f"InvalidArguments: tool {e.tool!r}: {e.reason}; fix the fields above"
    if isinstance(e, (MCPError, asyncio.CancelledError, KeyboardInterrupt)):
        return f"{type(e).__name__}: {e}".rstrip(": ")
    return f"{type(e).__name__}: {e}"
