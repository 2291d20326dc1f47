"""Keeping secrets out of everything we show: reprs, errors, logs."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

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


def redact_url(url: str) -> str:
    """Hide a password in the URL and the values of secret-looking query parameters
    (``?api_key=…``, ``&token=…``)."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user = userinfo.partition(":")[0]
        netloc = f"{user}:{REDACTED}@{host}" if ":" in userinfo else f"{REDACTED}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(is_secret_name(k) for k, _ in pairs):
            query = urlencode([(k, REDACTED if is_secret_name(k) else v) for k, v in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def replace_secret_args(args: Iterable[str], replace: Callable[[str, str, bool], str]) -> list[str]:
    """``args`` with each secret-looking value replaced by ``replace(name, value, whole)``:
    ``--token X`` and ``--api-key=X`` (name "token", "api-key"), ``TOKEN=X``, and a whole
    ``Bearer X`` argument (name "token", ``whole`` True)."""
    out: list[str] = []
    option: str | None = None
    for arg in args:
        if option is not None:
            out.append(replace(option, arg, False))
            option = None
            continue
        name, eq, value = arg.partition("=")
        if eq and is_secret_name(name):
            out.append(f"{name}={replace(name.lstrip('-'), value, False)}")
        elif arg.startswith("-") and is_secret_name(arg):
            out.append(arg)
            option = arg.lstrip("-")
        elif arg.lower().startswith("bearer "):
            out.append(replace("token", arg, True))
        else:
            out.append(arg)
    return out


def redact_args(args: Iterable[str]) -> list[str]:
    """Hide values of secret-looking options: ``--token X``, ``--api-key=X``, ``TOKEN=X``."""
    return replace_secret_args(args, lambda name, value, whole: REDACTED)
