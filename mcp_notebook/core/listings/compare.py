"""Two servers' listings compared (or a server's now and as a snapshot kept earlier):
what was added, removed, renamed or changed, and which changes break a caller.

A listing is compared entry by entry, by name (tools, prompts), URI (resources) or URI
template (templates). A removed entry and an added one of the same kind that are equal but
for their names and titles (the official SDK titles a tool's schemas after the tool) are
one rename; candidates are bucketed by that likeness, so thousands of renames take one
pass. A changed entry's changes are given as paths into it (``inputSchema.required``,
``inputSchema.properties.limit.type``), each with what it was and is.

Breaking is judged as a caller would call: an entry removed or renamed; an argument
removed or newly required; any value a caller could send before and cannot now (a type
narrowed, an enum shrunk or turned into a const, a const changed, a bound, pattern or
format added or tightened, extra properties refused); for an output, a field removed or
any value the caller could not get before (the other way round); a resource's or
template's MIME type changed; a schema change this cannot tell the direction of.
Descriptions, titles, defaults and annotations change without breaking anything.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import Any

from ..safety.text import printable

JSON = dict[str, Any]
KINDS = {"tools": ("tool", "name"), "prompts": ("prompt", "name"), "resources": ("resource", "uri"),
         "resourceTemplates": ("template", "uriTemplate")}  # fmt: skip


@dataclass(frozen=True)
class Change:
    """One difference: ``kind`` (tool, prompt, resource, template), ``name`` (its name or
    URI; a rename: ``old → new``), ``change`` (added, removed, renamed, changed), ``path``
    within the entry (None for a whole entry), ``before`` and ``after`` (as text), and
    whether it ``breaking`` for a caller of the old listing."""

    kind: str
    name: str
    change: str
    path: str | None
    before: str | None
    after: str | None
    breaking: bool

    def __repr__(self) -> str:
        where = f" {self.path}" if self.path else ""
        mark = " (breaking)" if self.breaking else ""
        return printable(f"<Change {self.kind} {self.name} {self.change}{where}{mark}>")


def compare(old: JSON, new: JSON) -> list[Change]:
    """The changes from listings ``old`` to ``new`` (each ``{"tools": [...], "prompts":
    [...], "resources": [...], "resourceTemplates": [...]}``, missing kinds as empty)."""
    changes: list[Change] = []
    for key, (kind, id_key) in KINDS.items():
        before = _by_id(old.get(key), id_key)
        after = _by_id(new.get(key), id_key)
        added = [k for k in after if k not in before]
        # Added entries bucketed by what a caller sees of them: each removed entry finds its
        # twin in one look-up, not by comparing it with every added one.
        twins: dict[str, deque[str]] = {}
        for name in added:
            twins.setdefault(_signature(after[name], id_key), deque()).append(name)
        renamed: set[str] = set()
        removed = []
        for name in (k for k in before if k not in after):
            bucket = twins.get(_signature(before[name], id_key))
            if bucket:
                twin = bucket.popleft()
                renamed.add(twin)
                changes.append(Change(kind, f"{name} → {twin}", "renamed", None, name, twin, True))
            else:
                removed.append(name)
        changes += [Change(kind, name, "removed", None, None, None, True) for name in removed]
        changes += [Change(kind, name, "added", None, None, None, False) for name in added if name not in renamed]
        for name in before:
            if name in after and before[name] != after[name]:
                changes += [
                    Change(kind, name, "changed", *rest) for rest in _entry_changes(kind, before[name], after[name])
                ]
    return changes


def _by_id(entries: Any, id_key: str) -> dict[str, JSON]:
    if not isinstance(entries, list):
        return {}
    return {str(e[id_key]): e for e in entries if isinstance(e, dict) and isinstance(e.get(id_key), str)}


def _signature(entry: JSON, id_key: str) -> str:
    """An entry as a caller sees it, but for its name: titles left out (the official SDK
    titles a tool's schemas after the tool, ``forecastArguments``), as is ``_meta``. Two
    entries with one signature are the same but for their names."""
    seen = {k: _untitled(v) if k in SCHEMAS else v for k, v in entry.items() if k not in {id_key, "title", "_meta"}}
    return json.dumps(seen, sort_keys=True, default=str)


def _untitled(schema: Any, depth: int = 0) -> Any:
    """A JSON Schema without its ``title`` annotations (at schema places only: a property
    may be called ``title``)."""
    if not isinstance(schema, dict) or depth > _DEEPEST:
        return schema
    out: JSON = {}
    for key, value in schema.items():
        if key == "title":
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            value = {name: _untitled(sub, depth + 1) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            value = [_untitled(sub, depth + 1) for sub in value]
        elif key in _SCHEMA_ONE:
            value = _untitled(value, depth + 1)
        out[key] = value
    return out


def _entry_changes(kind: str, before: JSON, after: JSON) -> list[tuple[str, str | None, str | None, bool]]:
    """(path, before, after, breaking) for each difference in one entry."""
    out: list[tuple[str, str | None, str | None, bool]] = []
    for key in sorted({*before, *after}, key=str):
        a, b = before.get(key), after.get(key)
        if a == b or key == "_meta":
            continue
        if key in SCHEMAS and isinstance(a, dict) and isinstance(b, dict):
            out += _schema_changes(key, a, b, output=key == "outputSchema")
        elif key == "arguments" and kind == "prompt":
            out += _prompt_argument_changes(a, b)
        else:
            breaking = kind in ("resource", "template") and key in ("mimeType", "uriTemplate")
            out.append((key, _text(a), _text(b), breaking))
    return out


def _schema_changes(
    path: str, a: JSON, b: JSON, output: bool, depth: int = 0
) -> list[tuple[str, str | None, str | None, bool]]:
    """The changes between two JSON Schemas (an input's or an output's), nested schemas
    included, each with whether it breaks a caller: for an input, a value the caller could
    send before and cannot now (the schema narrowed); for an output, a value the caller
    could not get before and may now (it widened); either way, a change this cannot tell."""
    out: list[tuple[str, str | None, str | None, bool]] = []
    breaks = {NARROWER: not output, WIDER: output, OTHER: True, SAME: False}
    if depth > _DEEPEST:
        return [(path, "(nested deeper)", "(changed)", True)]
    if not output:
        required_a, required_b = _strings(a.get("required")), _strings(b.get("required"))
        for name in sorted(required_b - required_a):
            out.append((f"{path}.required", None, name, True))  # a caller that leaves it out now fails
        for name in sorted(required_a - required_b):
            out.append((f"{path}.required", name, None, False))
    for key in ("properties", "$defs", "definitions"):
        out += _members_changes(path, key, a, b, output, depth)
    if any(a.get(k) != b.get(k) or (k in a) != (k in b) for k in ("enum", "const")):
        values_a, values_b = _allowed(a), _allowed(b)
        if "const" not in a and "const" not in b and values_a is not None and values_b is not None:
            gone, new = [v for v in values_a if v not in values_b], [v for v in values_b if v not in values_a]
            if gone:
                out.append((f"{path}.enum", _text(gone), None, breaks[NARROWER]))
            if new:
                out.append((f"{path}.enum", None, _text(new), breaks[WIDER]))
        else:  # enum -> const and the like: one row, the values allowed before and after
            key = "const" if "const" in b or ("enum" not in b and "const" in a) else "enum"
            out.append((f"{path}.{key}", _text(values_a), _text(values_b), breaks[_values_change(values_a, values_b)]))
    for key in sorted({*a, *b} - {"properties", "$defs", "definitions", "required", "enum", "const"}, key=str):
        va, vb = a.get(key), b.get(key)
        if va == vb:
            continue
        if key in _SCHEMA_ONE and key != "not" and isinstance(va, dict) and isinstance(vb, dict):
            out += _schema_changes(f"{path}.{key}", va, vb, output, depth + 1)
        else:
            out.append((f"{path}.{key}", _text(va), _text(vb), breaks[_keyword_change(key, va, vb)]))
    return out


def _members_changes(
    path: str, key: str, a: JSON, b: JSON, output: bool, depth: int
) -> list[tuple[str, str | None, str | None, bool]]:
    """Changes in the named subschemas under ``key``: properties (one removed breaks: an
    argument a caller sends, or a field it reads, gone) or definitions (what refers to one
    changes too, and says so)."""
    out: list[tuple[str, str | None, str | None, bool]] = []
    members_a, members_b = _mapping(a.get(key)), _mapping(b.get(key))
    for name in sorted({*members_a, *members_b}):
        pa, pb = members_a.get(name), members_b.get(name)
        here = f"{path}.{key}.{name}"
        if pa == pb:
            continue
        if pb is None:
            out.append((here, "present", None, key == "properties"))
        elif pa is None:
            out.append((here, None, "present", False))
        elif isinstance(pa, dict) and isinstance(pb, dict):
            out += _schema_changes(here, pa, pb, output, depth + 1)
        else:
            out.append((here, _text(pa), _text(pb), True))
    return out


NARROWER, WIDER, SAME, OTHER = "narrower", "wider", "same", "other"
SCHEMAS = ("inputSchema", "outputSchema")
_DEEPEST = 64  # schema levels compared; deeper, a difference is reported whole
_SCHEMA_MAPS = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
_SCHEMA_LISTS = {"anyOf", "oneOf", "allOf", "prefixItems", "items"}
_SCHEMA_ONE = {"items", "additionalProperties", "additionalItems", "not", "if", "then", "else", "contains",
               "propertyNames", "unevaluatedItems", "unevaluatedProperties"}  # fmt: skip
# Annotations: no value is refused for them.
_NOTES = {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly",
          "$schema", "$id", "contentMediaType"}  # fmt: skip
_LOWER = {"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"}
_UPPER = {"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"}
_ADDED_NARROWS = {"pattern", "format", "multipleOf", "contentEncoding", "propertyNames", "contains", "not",
                  "if", "dependentRequired", "dependentSchemas", "patternProperties", "unevaluatedProperties",
                  "unevaluatedItems", "additionalItems", "prefixItems", "$ref"}  # fmt: skip


def _allowed(schema: JSON) -> list[Any] | None:
    """The values a schema's ``enum`` and ``const`` allow (None: they do not limit them)."""
    values: list[Any] | None = list(schema["enum"]) if isinstance(schema.get("enum"), list) else None
    if "const" in schema:
        values = [schema["const"]] if values is None else [v for v in values if v == schema["const"]]
    return values


def _values_change(a: list[Any] | None, b: list[Any] | None) -> str:
    if a is None:
        return OTHER if b is None else NARROWER
    if b is None:
        return WIDER
    gone, new = any(v not in b for v in a), any(v not in a for v in b)
    return OTHER if gone and new else NARROWER if gone else WIDER if new else SAME


def _types(value: Any) -> set[str] | None:
    if isinstance(value, str):
        return {value}
    return {t for t in value if isinstance(t, str)} if isinstance(value, list) else None


def _keyword_change(key: str, va: Any, vb: Any) -> str:
    """How a schema keyword's change moves the values it allows (``va``/``vb`` None:
    absent): narrower, wider, the same, or other (both, or this cannot tell)."""
    if key in _NOTES:
        return SAME
    if key == "type":
        ta, tb = _types(va), _types(vb)
        if ta is None or tb is None:
            return SAME if ta == tb else NARROWER if ta is None else WIDER
        lost = any(t not in tb and not (t == "integer" and "number" in tb) for t in ta)
        gained = any(t not in ta and not (t == "integer" and "number" in ta) for t in tb)
        return OTHER if lost and gained else NARROWER if lost else WIDER if gained else SAME
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (va, vb) if v is not None)
    if key in _LOWER | _UPPER and numbers:
        if va is None or vb is None:
            return NARROWER if va is None else WIDER
        up = vb > va if key in _LOWER else vb < va
        return NARROWER if up else WIDER
    if key in ("anyOf", "oneOf", "allOf") and isinstance(va or [], list) and isinstance(vb or [], list):
        la, lb = va or [], vb or []
        gone, new = any(o not in lb for o in la), any(o not in la for o in lb)
        if key == "allOf":  # every one must hold: one more narrows
            gone, new = new, gone
        if va is None or vb is None:  # none at all allows anything
            return NARROWER if va is None else WIDER
        return OTHER if gone and new else NARROWER if gone else WIDER if new else SAME
    if key == "uniqueItems" or (key == "additionalProperties" and not isinstance(va or vb, dict)):
        limits_a = va is False if key == "additionalProperties" else va is True
        limits_b = vb is False if key == "additionalProperties" else vb is True
        return SAME if limits_a == limits_b else NARROWER if limits_b else WIDER
    if key in _ADDED_NARROWS or key in _SCHEMA_ONE:  # one more condition, one fewer, or another
        return NARROWER if va is None else WIDER if vb is None else OTHER
    return SAME  # a keyword no validator knows refuses nothing


def _named(items: Any) -> dict[str, JSON]:
    """A prompt's arguments by name (what is not one, left out)."""
    if not isinstance(items, list):
        return {}
    return {x["name"]: x for x in items if isinstance(x, dict) and isinstance(x.get("name"), str)}


def _strings(value: Any) -> set[str]:
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def _mapping(value: Any) -> JSON:
    return value if isinstance(value, dict) else {}


def _prompt_argument_changes(a: Any, b: Any) -> list[tuple[str, str | None, str | None, bool]]:
    args_a = (
        {x["name"]: x for x in a if isinstance(x, dict) and isinstance(x.get("name"), str)}
        if isinstance(a, list)
        else {}
    )
    args_b = (
        {x["name"]: x for x in b if isinstance(x, dict) and isinstance(x.get("name"), str)}
        if isinstance(b, list)
        else {}
    )
    out: list[tuple[str, str | None, str | None, bool]] = []
    for name in sorted({*args_a, *args_b}, key=str):
        xa, xb = args_a.get(name), args_b.get(name)
        if xa == xb:
            continue
        here = f"arguments.{name}"
        if xb is None:
            out.append((here, "present", None, True))
        elif xa is None:
            out.append((here, None, "present", bool(xb.get("required"))))
        elif bool(xa.get("required")) != bool(xb.get("required")):
            out.append(
                (f"{here}.required", _text(xa.get("required")), _text(xb.get("required")), bool(xb.get("required")))
            )
        else:
            out.append((here, _text(xa), _text(xb), False))
    return out


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


__all__ = ["KINDS", "Change", "compare"]
