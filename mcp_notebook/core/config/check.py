"""Checking a config against one of the schemas of configschema.py, in our words.

jsonschema finds what is wrong; its own messages are never shown. Each error becomes the
one-line message its subschema carries (``message``), naming the file and the key path,
and the first in the config's own order is raised as a ConfigError. A key that an
``additionalProperties: false`` leaves out is not an error: it is ignored, with one
ConfigWarning worded by ``ignored``.

jsonschema is imported by the first check, not with the package: in some environments
importing it takes a second or more (its format checkers build parsers as they load).
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import ConfigError, ConfigWarning
from ..safety.text import shown_name

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["check"]

KeyPath = Sequence[str | int]

# By id: the schemas are configschema's module constants, alive as long as the process.
_validators: dict[int, Validator] = {}


def check(instance: Any, schema: dict[str, Any], *, source: str = "", base: KeyPath = ()) -> None:
    """Warn about each ignored key, then raise ConfigError for the first thing wrong, if any.

    ``source`` names the file and ``base`` the key path of ``instance`` in it (a server
    checked on its own is at ``(key, name)``)."""
    problems: list[tuple[tuple[int, ...], str]] = []
    ignored: list[tuple[tuple[int, ...], str]] = []
    for error in _validator(schema).iter_errors(instance):
        # error.schema is the subschema whose keyword failed, error.instance the value there.
        subschema: Any = error.schema
        value: Any = error.instance
        path: list[str | int] = list(error.absolute_path)
        if "propertyNames" in error.absolute_schema_path:
            path.append(value)  # a key's own name is wrong: say so at the key
        if error.validator == "additionalProperties" and subschema["additionalProperties"] is False:
            words = subschema["ignored"]
            at = _at(source, [*base, *path])
            for key in value:
                if key not in subschema.get("properties", {}):
                    text = words.get(key, words["*"]).format(at=at, key=shown_name(key))
                    ignored.append((_position(instance, [*path, key]), text))
            continue
        if error.validator == "required":
            path.append(next(key for key in subschema["required"] if key not in value))
            value = None
        text = _template(subschema, str(error.validator)).format(
            at=_at(source, [*base, *path]),
            key=shown_name(next((part for part in reversed(path) if isinstance(part, str)), "")),
            value=value,
            json=json.dumps(value, default=repr),
            type="null" if value is None else type(value).__name__,
            root=instance,
        )
        problems.append((_position(instance, path), text))
    for _, text in sorted(ignored):
        warnings.warn(text, ConfigWarning, stacklevel=2)
    if problems:
        raise ConfigError(min(problems)[1])


def _validator(schema: dict[str, Any]) -> Validator:
    validator = _validators.get(id(schema))
    if validator is None:
        from jsonschema import Draft202012Validator, validators  # heavy: on the first check only

        extend: Any = validators.extend  # (untyped in jsonschema)
        validator = _validators[id(schema)] = extend(Draft202012Validator, {"finite": _finite})(schema)
    return validator


def _finite(validator: Any, finite: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """Our ``finite`` keyword (schema.py): NaN and the infinities fail it."""
    from jsonschema import ValidationError

    if finite and validator.is_type(instance, "number") and not math.isfinite(instance):
        yield ValidationError(f"{instance!r} is not a finite number")


def _template(subschema: dict[str, Any], keyword: str) -> str:
    message = subschema.get("message")
    if isinstance(message, dict):
        message = message.get(keyword)
    # Every rule of ours has one (tests/test_config.py checks): this is a last resort.
    return message if isinstance(message, str) else "{at}: not a valid value"


def _at(source: str, path: Iterable[str | int]) -> str:
    """``.mcp.json: mcpServers.s.args[1]``, a key's control characters shown as escapes."""
    keys = ""
    for part in path:
        keys += f"[{part}]" if isinstance(part, int) else f".{shown_name(part)}" if keys else shown_name(part)
    return f"{source}: {keys}" if keys and source else source or keys


def _position(instance: Any, path: Iterable[str | int]) -> tuple[int, ...]:
    """Where ``path`` is in ``instance``, for telling which problem comes first: the place
    of each key in its object (a missing key first), of each item in its list."""
    out = []
    for part in path:
        if isinstance(instance, dict):
            keys = list(instance)
            out.append(keys.index(part) if part in instance else -1)
            instance = instance.get(part)
        elif isinstance(instance, list) and isinstance(part, int):
            out.append(part)
            instance = instance[part]
        else:
            break
    return tuple(out)
