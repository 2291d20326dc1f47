"""A form's field from a property of a JSON schema (an elicitation's requestedSchema, a
tool's inputSchema in ``%mcp form``): its input widget, label, help and the error its value
has, shown as the person types; and the schema's choices and what a field can hold.

A server's schema is untrusted: a default or a label that cannot be used is left out, and
labels are made printable (ipywidgets shows them as text).
"""

from __future__ import annotations

import re
from typing import Any

import ipywidgets as w

from ..core.safety.text import escape, printable

__all__ = ["ANY", "Field", "fits", "label_of", "label_width", "options"]

_FAINT = "color:var(--jp-content-font-color2, #666);font-size:0.85em"  # a theme's variable
ANY = "(any)"  # an optional dropdown's choice that leaves the field out
_BOUNDS = ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems")
_FORMATS = {
    "email": ("name@example.org", re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")),
    "uri": ("https://…", re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")),
    "date": ("YYYY-MM-DD", re.compile(r"^\d{4}-\d{2}-\d{2}$")),
    "date-time": (
        "YYYY-MM-DDThh:mm:ssZ",
        re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})?$"),
    ),
}


class Field:
    """One scalar (or multi-select) field of a form: its input, help line and error line."""

    def __init__(
        self, name: str, schema: dict[str, Any], required: bool, described: bool = False, width: str = "initial"
    ) -> None:
        # Bounds that are not numbers, a format that is not text: left out (nothing to compare with).
        schema = {
            k: v
            for k, v in schema.items()
            if not (k in _BOUNDS and (not isinstance(v, (int, float)) or isinstance(v, bool)))
            and not (k == "format" and not isinstance(v, str))
        }
        default = schema.get("default")
        if default is not None and not fits(schema, default):
            # A server's schema is untrusted: a default the field cannot hold (text for a
            # number, a value that is not one of the choices) is not used, as if not given.
            schema, default = {k: v for k, v in schema.items() if k != "default"}, None
        self.name, self.schema, self.required = name, schema, required
        # Labels are text, not HTML, in ipywidgets: shown printable (a bidi override could
        # make a label read other than it is). Values stay as the server sent them.
        label = printable(label_of(name, schema, described)) + (" *" if required else "")
        kind = schema.get("type")
        single = options(schema)
        style = {"description_width": width}  # one width for a card's labels: its inputs line up
        layout = w.Layout(width="auto")
        if single is not None and kind != "array":
            values = ([(ANY, None)] if not required and default is None else []) + single
            self.input: Any = w.Dropdown(options=values, value=default if default is not None else values[0][1],
                                         description=label, style=style)  # fmt: skip
        elif kind == "array":
            choices = options(_items(schema)) or []
            self.input = w.SelectMultiple(options=choices, value=tuple(default or ()), description=label, style=style)
        elif kind == "boolean":
            self.input = w.Checkbox(value=bool(default), description=label, indent=False)
        elif kind == "integer":
            self.input = w.IntText(value=default if default is not None else 0, description=label, style=style)
        elif kind == "number":
            self.input = w.FloatText(value=default if default is not None else 0.0, description=label, style=style)
        else:
            placeholder = _FORMATS.get(schema.get("format", ""), ("", None))[0]
            self.input = w.Text(value=default or "", placeholder=placeholder, description=label, style=style,
                                layout=layout)  # fmt: skip
        # A number or a checkbox always holds a value: an optional one with no default is
        # only sent once the person changed it.
        self.touched = False
        self.input.observe(lambda _: self._edited(), "value")
        help_text = str(schema["description"]) if schema.get("description") else None
        if help_text and help_text.strip().lower() == label_of(name, schema, described).strip().lower():
            help_text = None  # the label says it already
        self.help = w.HTML(f"<span style='{_FAINT}'>{escape(help_text)}</span>" if help_text else "")
        self.error = w.HTML()
        self.widget = w.VBox([self.input, self.help, self.error])

    def _edited(self) -> None:
        """The person changed the field: its error, or none, shows at once."""
        self.touched = True
        self.check()

    def check(self) -> bool:
        """Show the field's error, or clear it; whether the value is good."""
        error = self.value()[1]
        self.error.value = f"<span style='color:#d33;font-size:0.85em'>{escape(error)}</span>" if error else ""
        return error is None

    def value(self) -> tuple[Any, str | None]:
        """(value, error). A blank optional field gives (None, None): left out."""
        s = self.schema
        if not self.required and "default" not in s and not self.touched:
            return None, None
        value = self.input.value
        if isinstance(self.input, w.SelectMultiple):
            value = list(value)
        if value in ("", None) or value == []:
            return (None, "required") if self.required else (None, None)
        if isinstance(value, str):
            if "minLength" in s and len(value) < s["minLength"]:
                return None, f"at least {s['minLength']} characters"
            if "maxLength" in s and len(value) > s["maxLength"]:
                return None, f"at most {s['maxLength']} characters"
            fmt = _FORMATS.get(s.get("format", ""))
            if fmt and not fmt[1].match(value):
                return None, f"not a valid {s['format']} ({fmt[0]})"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in s and value < s["minimum"]:
                return None, f"at least {s['minimum']}"
            if "maximum" in s and value > s["maximum"]:
                return None, f"at most {s['maximum']}"
        if isinstance(value, list):
            if "minItems" in s and len(value) < s["minItems"]:
                return None, f"choose at least {s['minItems']}"
            if "maxItems" in s and len(value) > s["maxItems"]:
                return None, f"choose at most {s['maxItems']}"
        return value, None


def label_width(labels: list[str]) -> str:
    """A width that fits the longest of a form's labels (about 0.6em a character, within
    reason), so that their inputs line up."""
    longest = max((len(label) for label in labels), default=0)
    return f"{min(max(longest, 6), 36) * 0.6 + 1:.1f}em"


def label_of(name: str, schema: dict[str, Any], described: bool = False) -> str:
    """A field's label: the schema's title, unless it is only the key made into words (as
    pydantic makes "Body Mass G" of body_mass_g). Then, ``described`` (a server's question),
    a short description says it better; else (a tool's form) the key, as %mcp call takes it."""
    title = schema.get("title")
    if title and str(title) != name.replace("_", " ").title():
        return str(title)
    description = schema.get("description")
    if described and isinstance(description, str) and 0 < len(description) <= 40 and "\n" not in description:
        return description
    return str(title or name) if described else name


def options(schema: dict[str, Any]) -> list[tuple[str, Any]] | None:
    """Choices of a single- or multi-select: enum (with legacy enumNames), or oneOf/anyOf
    of {const, title}. None where there are none (an enum that is not a list, or empty)."""
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        names = schema.get("enumNames")
        if not isinstance(names, list) or len(names) != len(enum):
            names = enum  # legacy names that do not name each choice: the values shown
        return [(printable(str(n)), v) for n, v in zip(names, enum, strict=True)]
    for key in ("oneOf", "anyOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches and all(isinstance(o, dict) and "const" in o for o in branches):
            return [(printable(str(o.get("title", o["const"]))), o["const"]) for o in branches]
    return None


def fits(schema: dict[str, Any], value: Any) -> bool:
    """Whether the field for ``schema`` can hold ``value`` as it is (a default, a last
    argument): of the schema's type, one of its choices; never a value converted."""
    kind, choices = schema.get("type"), options(schema)
    if kind == "array":
        allowed = [v for _, v in options(_items(schema)) or []]
        return isinstance(value, list) and all(_among(x, allowed) for x in value)
    if choices is not None:
        return _among(value, [v for _, v in choices])
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, str)


def _among(value: Any, allowed: list[Any]) -> bool:
    return any(type(value) is type(v) and value == v for v in allowed)  # True is not 1 here


def _items(schema: dict[str, Any]) -> dict[str, Any]:
    items = schema.get("items")
    return items if isinstance(items, dict) else {}
