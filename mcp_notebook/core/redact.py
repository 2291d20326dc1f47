"""Keeping secrets out of everything we show: reprs, errors, logs."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

REDACTED = "***"

_SECRET_WORDS = re.compile(
    r"(token|secret|passw(or)?d|api[-_]?key|auth|credential|bearer|cookie|session[-_]?id|private[-_]?key)",
    re.IGNORECASE,
)


def is_secret_name(name: str) -> bool:
    """Whether a header, env var or option name usually carries a secret."""
    return bool(_SECRET_WORDS.search(name))


def redact_mapping(values: Mapping[str, str]) -> dict[str, str]:
    return {k: (REDACTED if is_secret_name(k) else v) for k, v in values.items()}


def redact_args(args: Iterable[str]) -> list[str]:
    """Hide values of secret-looking options: ``--token X``, ``--api-key=X``, ``TOKEN=X``."""
    out: list[str] = []
    hide_next = False
    for arg in args:
        if hide_next:
            out.append(REDACTED)
            hide_next = False
            continue
        name, eq, _ = arg.partition("=")
        if eq and is_secret_name(name):
            out.append(f"{name}={REDACTED}")
        elif arg.startswith("-") and is_secret_name(arg):
            out.append(arg)
            hide_next = True
        elif arg.lower().startswith("bearer "):
            out.append(REDACTED)
        else:
            out.append(arg)
    return out
