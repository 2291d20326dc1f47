"""Two servers' listings compared (or a server's now and as a snapshot kept earlier):
what was added, removed, renamed or changed, and which changes break a caller.

A listing is compared entry by entry, by name (tools, prompts), URI (resources) or URI
template (templates). A removed entry and an added one of the same kind that are otherwise
equal are one rename. A changed entry's changes are given as paths into it
(``inputSchema.required``, ``inputSchema.properties.limit.type``), each with what it was
and is. Breaking, for a caller written against the old listing: an entry removed or
renamed; an argument removed, newly required, or of another type; an enum value removed
from an argument; an output field removed or of another type; a resource's or template's
MIME type changed. Descriptions, titles and annotations change without breaking anything.
"""

from __future__ import annotations

import json
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
        removed = [k for k in before if k not in after]
        added = [k for k in after if k not in before]
        for name in list(removed):
            twin = next((a for a in added if _same_but_name(before[name], after[a], id_key)), None)
            if twin is not None:
                removed.remove(name)
                added.remove(twin)
                changes.append(Change(kind, f"{name} → {twin}", "renamed", None, name, twin, True))
        changes += [Change(kind, name, "removed", None, None, None, True) for name in removed]
        changes += [Change(kind, name, "added", None, None, None, False) for name in added]
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


def _same_but_name(a: JSON, b: JSON, id_key: str) -> bool:
    ignore = {id_key, "title", "_meta"}
    return {k: v for k, v in a.items() if k not in ignore} == {k: v for k, v in b.items() if k not in ignore}


def _entry_changes(kind: str, before: JSON, after: JSON) -> list[tuple[str, str | None, str | None, bool]]:
    """(path, before, after, breaking) for each difference in one entry."""
    out: list[tuple[str, str | None, str | None, bool]] = []
    for key in sorted({*before, *after}, key=str):
        a, b = before.get(key), after.get(key)
        if a == b or key == "_meta":
            continue
        if key in ("inputSchema", "outputSchema") and isinstance(a, dict) and isinstance(b, dict):
            out += _schema_changes(key, a, b, output=key == "outputSchema")
        elif key == "arguments" and kind == "prompt":
            out += _prompt_argument_changes(a, b)
        else:
            breaking = kind in ("resource", "template") and key in ("mimeType", "uriTemplate")
            out.append((key, _text(a), _text(b), breaking))
    return out


def _schema_changes(path: str, a: JSON, b: JSON, output: bool) -> list[tuple[str, str | None, str | None, bool]]:
    """The changes between two JSON Schemas (an input's or an output's), nested objects
    included, each with whether it breaks a caller."""
    out: list[tuple[str, str | None, str | None, bool]] = []
    if not output:
        required_a, required_b = _strings(a.get("required")), _strings(b.get("required"))
        for name in sorted(required_b - required_a):
            out.append((f"{path}.required", None, name, True))  # a caller that leaves it out now fails
        for name in sorted(required_a - required_b):
            out.append((f"{path}.required", name, None, False))
    props_a, props_b = _mapping(a.get("properties")), _mapping(b.get("properties"))
    for name in sorted({*props_a, *props_b}):
        pa, pb = props_a.get(name), props_b.get(name)
        here = f"{path}.properties.{name}"
        if pa == pb:
            continue
        if pb is None:
            out.append((here, "present", None, True))  # an argument a caller sends, or a field it reads, gone
        elif pa is None:
            out.append((here, None, "present", False))
        elif isinstance(pa, dict) and isinstance(pb, dict):
            out += _schema_changes(here, pa, pb, output)
        else:
            out.append((here, _text(pa), _text(pb), True))
    for key in sorted({*a, *b} - {"properties", "required"}, key=str):
        va, vb = a.get(key), b.get(key)
        if va == vb:
            continue
        if key == "enum" and isinstance(va, list) and isinstance(vb, list):
            gone, new = [v for v in va if v not in vb], [v for v in vb if v not in va]
            if gone:
                out.append((f"{path}.enum", _text(gone), None, True))
            if new:
                out.append((f"{path}.enum", None, _text(new), False))
        else:
            out.append((f"{path}.{key}", _text(va), _text(vb), key in ("type", "items")))
    return out


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
