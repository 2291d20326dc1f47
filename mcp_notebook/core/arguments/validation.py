"""Checking tool arguments and structured output against the tool's JSON Schemas."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...errors import ArgumentError, InvalidArguments

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = ["arguments_check", "check_prompt_arguments", "check_structured_output", "validate_arguments"]

# Validators are built once per schema object; listings are cached, so ids are stable
# while the schema is alive (we keep a reference to it beside the validator).
_validators: dict[int, tuple[Any, Any]] = {}
_quick: dict[int, tuple[Any, Callable[[Any], bool] | None]] = {}

# A quick yes for the plain object schemas most tools have. It is conservative: True
# means jsonschema would accept too; False (or an unusual schema) means "ask jsonschema",
# which also words the error. jsonschema costs ~20 µs a call; this ~1 µs.
_ANNOTATIONS = {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}
_TOP_KEYS = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties", "$schema"}
_MODERN = (
    None,
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
)
_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}
_BOUNDS: dict[str, Callable[[Any, Any], bool]] = {
    "minimum": lambda v, b: v >= b,
    "maximum": lambda v, b: v <= b,
    "exclusiveMinimum": lambda v, b: v > b,
    "exclusiveMaximum": lambda v, b: v < b,
    "minLength": lambda v, b: len(v) >= b,
    "maxLength": lambda v, b: len(v) <= b,
}


def _never(value: Any) -> bool:
    return False


# One closure per rule, made by a function so that each binds its own values (not the loop's).
def _any_type(tests: list[Callable[[Any], bool]]) -> Callable[[Any], bool]:
    return lambda v: any(t(v) for t in tests)


def _one_of(options: list[Any]) -> Callable[[Any], bool]:
    # Same type and equal: never wrong (jsonschema tells True from 1, and 1 from 1.0 here is "ask").
    return lambda v: any(type(v) is type(o) and v == o for o in options)


def _number_bound(test: Callable[[Any, Any], bool], bound: float) -> Callable[[Any], bool]:
    return lambda v: not isinstance(v, (int, float)) or isinstance(v, bool) or test(v, bound)


def _length_bound(test: Callable[[Any, Any], bool], bound: float) -> Callable[[Any], bool]:
    return lambda v: not isinstance(v, str) or test(v, bound)


# Types an isinstance() check decides alone (integer and number must also refuse True/False).
_PLAIN_TYPES: dict[str, type] = {
    "string": str,
    "boolean": bool,
    "null": type(None),
    "array": list,
    "object": dict,
}


def _plain_type(schema: Any) -> tuple[type, ...] | None:
    """The Python types a property's schema allows when its only rule is such a type."""
    if not isinstance(schema, dict) or any(k not in _ANNOTATIONS and k != "type" for k in schema):
        return None
    rule = schema.get("type")
    names = rule if isinstance(rule, list) else [rule]
    if not names or not all(isinstance(n, str) and n in _PLAIN_TYPES for n in names):
        return None
    return tuple(_PLAIN_TYPES[str(n)] for n in names)


def _quick_property(schema: Any) -> Callable[[Any], bool]:
    if not isinstance(schema, dict):
        return _never
    checks: list[Callable[[Any], bool]] = []
    for key, rule in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key == "type":
            names = rule if isinstance(rule, list) else [rule]
            if not all(isinstance(n, str) and n in _TYPES for n in names):
                return _never
            tests = [_TYPES[n] for n in names]
            checks.append(tests[0] if len(tests) == 1 else _any_type(tests))
        elif key in ("enum", "const"):
            options = rule if key == "enum" else [rule]
            if not isinstance(options, list) or not all(isinstance(o, (str, int, float, bool)) for o in options):
                return _never
            checks.append(_one_of(options))
        elif key in _BOUNDS and isinstance(rule, (int, float)) and not isinstance(rule, bool):
            bound = _length_bound if key in ("minLength", "maxLength") else _number_bound
            checks.append(bound(_BOUNDS[key], rule))
        else:
            return _never  # format, items, nested objects, $ref...: ask jsonschema
    if len(checks) == 1:
        return checks[0]  # the common case (a type): no generator per argument
    return lambda v: all(c(v) for c in checks)


def _compile_quick(schema: dict[str, Any]) -> Callable[[Any], bool] | None:
    if schema.get("type") != "object" or schema.get("$schema") not in _MODERN or not set(schema) <= _TOP_KEYS:
        return None
    properties = schema.get("properties") or {}
    required = schema.get("required") or []
    additional = schema.get("additionalProperties", True)
    if not isinstance(properties, dict) or not isinstance(required, list) or not isinstance(additional, bool):
        return None
    # A property that only has a plain type is checked with isinstance (no call of ours per argument).
    plain = {name: kinds for name, kinds in ((n, _plain_type(sub)) for n, sub in properties.items()) if kinds}
    checks = {name: _quick_property(sub) for name, sub in properties.items() if name not in plain}

    def quick(arguments: Any) -> bool:
        if not isinstance(arguments, dict):
            return False
        for name in required:
            if name not in arguments:
                return False
        for name, value in arguments.items():
            kinds = plain.get(name)
            if kinds is not None:
                if not isinstance(value, kinds):
                    return False
                continue
            check = checks.get(name)
            if check is None:
                if not additional:
                    return False
            elif not check(value):
                return False
        return True

    return quick


def _validator(schema: dict[str, Any]) -> Any:
    entry = _validators.get(id(schema))
    if entry is not None and entry[0] is schema:
        return entry[1]
    import jsonschema  # heavy: only on the first call that validates

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except (jsonschema.SchemaError, RecursionError):
        validator = None  # the server's schema is broken (or nested too deep to check): do not block the call on it
    else:
        validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    if len(_validators) > 4096:
        _validators.clear()
    _validators[id(schema)] = (schema, validator)
    return validator


def _describe(error: ValidationError) -> str:
    path = "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    if error.validator == "required":
        return error.message.replace("is a required property", "is required")
    if error.validator == "additionalProperties":
        return error.message
    return f"{path or 'arguments'}: {error.message} ({error.validator})"


def _quick_for(schema: dict[str, Any]) -> Callable[[Any], bool] | None:
    entry = _quick.get(id(schema))
    if entry is None or entry[0] is not schema:
        if len(_quick) > 4096:
            _quick.clear()
        entry = (schema, _compile_quick(schema))
        _quick[id(schema)] = entry
    return entry[1]


def arguments_check(tool: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """``validate_arguments`` for one tool, its quick check looked up once: what every row
    of a bulk map goes through."""
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        return lambda arguments: None  # no schema: nothing to check
    quick = _quick_for(schema)
    if quick is None:
        return lambda arguments: _by_jsonschema(tool, schema, arguments)

    def check(arguments: dict[str, Any]) -> None:
        if not quick(arguments):
            _by_jsonschema(tool, schema, arguments)  # it decides, and says what is wrong

    return check


def validate_arguments(tool: dict[str, Any], arguments: dict[str, Any]) -> None:
    """Raise InvalidArguments (an ArgumentError) naming the field and the rule when
    ``arguments`` do not fit."""
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        return
    quick = _quick_for(schema)
    if quick is None or not quick(arguments):
        _by_jsonschema(tool, schema, arguments)


def _by_jsonschema(tool: dict[str, Any], schema: dict[str, Any], arguments: dict[str, Any]) -> None:
    validator = _validator(schema)
    if validator is None or validator.is_valid(arguments):
        return
    import jsonschema.exceptions

    error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    raise InvalidArguments(str(tool.get("name")), _describe(error))


def check_structured_output(tool: dict[str, Any], structured: Any) -> str | None:
    """The reason ``structuredContent`` breaks the tool's outputSchema, or None."""
    schema = tool.get("outputSchema")
    if not isinstance(schema, dict) or structured is None:
        return None
    validator = _validator(schema)
    if validator is None or validator.is_valid(structured):
        return None
    import jsonschema.exceptions

    error = jsonschema.exceptions.best_match(validator.iter_errors(structured))
    return f"structuredContent does not match the outputSchema: {_describe(error)}"


def check_prompt_arguments(prompt: dict[str, Any], arguments: dict[str, Any]) -> None:
    """ArgumentError, naming the argument, when a required one is missing or one is not the
    prompt's (its listing entry says which it takes)."""
    name = prompt.get("name")
    declared = [a for a in prompt.get("arguments") or [] if isinstance(a, dict) and isinstance(a.get("name"), str)]
    names = [a["name"] for a in declared]
    listed = ", ".join(f"{a['name']}{'*' if a.get('required') else ''}" for a in declared) or "none"
    missing = [a["name"] for a in declared if a.get("required") and a["name"] not in arguments]
    if missing:
        raise ArgumentError(
            f"prompt {name!r}: missing required argument {', '.join(map(repr, missing))} (arguments: {listed})"
        )
    unknown = [k for k in arguments if k not in names]
    if unknown:
        raise ArgumentError(f"prompt {name!r} has no argument {', '.join(map(repr, unknown))} (arguments: {listed})")
