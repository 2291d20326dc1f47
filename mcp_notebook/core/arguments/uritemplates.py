"""URI templates (RFC 6570) as resource templates use them: the variables a template names,
and the URI it gives for their values.

Levels 1-3 of the RFC (simple, reserved ``+``, fragment ``#``, label ``.``, path ``/``,
path parameter ``;``, query ``?`` and ``&`` expressions, several variables each); no value
modifiers (``:3``, ``*``), which resource templates do not use in practice: their names are
read without them and the values given whole.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote

__all__ = ["expand", "variables"]

_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^{}]*)\}")
# operator -> (first, separator, named, empty-value suffix, characters left as they are)
_OPERATORS: dict[str, tuple[str, str, bool, str, str]] = {
    "": ("", ",", False, "", ""),
    "+": ("", ",", False, "", ":/?#[]@!$&'()*+,;="),
    "#": ("#", ",", False, "", ":/?#[]@!$&'()*+,;="),
    ".": (".", ".", False, "", ""),
    "/": ("/", "/", False, "", ""),
    ";": (";", ";", True, "", ""),
    "?": ("?", "&", True, "=", ""),
    "&": ("&", "&", True, "=", ""),
}


def _names(spec: str) -> list[str]:
    return [re.sub(r"(:\d+|\*)$", "", part.strip()) for part in spec.split(",") if part.strip()]


def variables(template: str) -> list[str]:
    """The variables a template names, in order, each once."""
    seen: list[str] = []
    for match in _EXPRESSION.finditer(template):
        for name in _names(match.group(2)):
            if name not in seen:
                seen.append(name)
    return seen


def expand(template: str, values: Mapping[str, object]) -> str:
    """The URI for these values; a variable with no value (missing, None) is left out."""

    def one(match: re.Match[str]) -> str:
        first, separator, named, empty, safe = _OPERATORS[match.group(1)]
        parts = []
        for name in _names(match.group(2)):
            value = values.get(name)
            if value is None:
                continue
            text = quote(str(value), safe=safe)
            parts.append(f"{name}={text}" if named and text else f"{name}{empty}" if named else text)
        return first + separator.join(parts) if parts else ""

    return _EXPRESSION.sub(one, template)
