"""Keeping secrets out of everything we show: reprs, errors, logs."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .detect import (
    REDACTED,
    REFERENCE,
    SHORTEST,
    is_plain_value,
    is_secret_name,
    is_secret_parameter,
    is_secret_setting,
    mask_secrets,
    secret_spans,
)

__all__ = [
    "ELIDE_AT",
    "Mask",
    "redact_args",
    "redact_mapping",
    "redact_url",
    "replace_secret_args",
    "secret_values",
    "sent_secrets",
    "shown",
]

_NAME = re.compile(r"-{0,2}[A-Za-z_][\w.-]*")  # an option's or a variable's name


def redact_mapping(values: Mapping[str, str]) -> dict[str, str]:
    """Env vars or headers fit to show: secret-looking names' values hidden (but a
    ``${VAR}`` reference: where the value comes from), and secrets found in the other values
    by their shape (detect.py)."""
    return {k: (_hidden(v) if is_secret_setting(k) else mask_secrets(v)) for k, v in values.items()}


def _hidden(value: str) -> str:
    return value if REFERENCE.fullmatch(value) else REDACTED


# A URI's parts, unchecked (RFC 3986, appendix B): what urlsplit refuses still splits.
_URL_PARTS = re.compile(r"(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?", re.DOTALL)


def _split_unchecked(url: str) -> tuple[str, str, str, str, str]:
    """``urlsplit``'s five parts, for an address it refuses (it matches any text)."""
    found = _URL_PARTS.fullmatch(url)
    parts = found.group(2, 4, 5, 7, 9) if found else (None, None, url, None, None)
    return tuple(part or "" for part in parts)  # type: ignore[return-value]


def redact_url(url: str, *, paths: bool = False) -> str:
    """Hide a password in the URL, the values of secret-looking query parameters
    (``?api_key=…``, ``&token=…``, ``?code=…``) and secrets of known shapes (``ghp_…``).
    ``paths``: keys in its path too (detect.py), for a URL a person configured for a
    server; a resource's URI names content (``/file/d/<id>/view``): left as it is."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    try:
        scheme, netloc, path, query, fragment = urlsplit(url)
    except ValueError:  # brackets that hold no IP address (https://[x]/): split as RFC 3986 does
        scheme, netloc, path, query, fragment = _split_unchecked(url)
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user = userinfo.partition(":")[0]
        netloc = f"{user}:{REDACTED}@{host}" if ":" in userinfo else f"{REDACTED}@{host}"
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(is_secret_parameter(k) for k, _ in pairs):
            query = urlencode([(k, REDACTED if is_secret_parameter(k) else v) for k, v in pairs], safe="*")
    return mask_secrets(urlunsplit((scheme, netloc, path, query, fragment)), paths=paths)


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
        if eq and _NAME.fullmatch(name) and is_secret_setting(name):  # not a URL's ?key=: detect.py finds that
            out.append(f"{name}={replace(name.lstrip('-'), value, False)}")
        elif arg.startswith("-") and is_secret_setting(arg) and not arg.startswith("--no-"):  # --no-auth: a switch
            out.append(arg)
            option = arg.lstrip("-")
        elif arg.lower().startswith("bearer "):
            out.append(replace("token", arg, True))
        else:
            out.append(arg)
    return out


def redact_args(args: Iterable[str]) -> list[str]:
    """Hide values of secret-looking options (``--token X``, ``--api-key=X``, ``TOKEN=X``;
    a ``${VAR}`` reference stays) and secrets found in any argument by their shape (a URL's
    password, ``ghp_…``; detect.py)."""
    return [mask_secrets(arg) for arg in replace_secret_args(args, lambda name, value, whole: _hidden(value))]


def secret_values(args: Iterable[str] = (), env: Mapping[str, str] | None = None) -> list[str]:
    """The secret values among a server's arguments (``--token X``, ``TOKEN=X``, a
    ``Bearer X`` argument: the rules of ``redact_args``) and environment (secret-looking
    names), for ``mask``."""
    found: list[str] = []

    def keep(name: str, value: str, whole: bool) -> str:
        found.append(value.split(" ", 1)[1] if whole and " " in value else value)
        return value

    args = list(args)
    replace_secret_args(args, keep)
    found += [v for k, v in (env or {}).items() if is_secret_setting(k)]
    for text in [*args, *(env or {}).values()]:
        found += [text[span.start : span.end] for span in secret_spans(text)]
    # Not secrets, whatever their names say: an option after `--no-auth`, a switch's value, a number.
    return [v for v in found if not v.startswith("-") and not is_plain_value(v)]


def sent_secrets(fields: Iterable[tuple[str, str]] = (), values: Iterable[str] = ()) -> Mask:
    """Masks what a request sent that is secret, as a server may quote it back in an error:
    the values of secret-looking ``fields`` (headers, query parameters, form fields) and the
    credential of a ``Bearer …``/``Basic …`` one, and ``values``; each as sent and URL-encoded."""
    from urllib.parse import quote, quote_plus

    found = [v for k, v in fields if v and is_secret_parameter(k)]
    found += [v.partition(" ")[2] for v in found if " " in v]
    found += [v for v in values if v]
    return Mask([*found, *(quote_plus(v) for v in found), *(quote(v, safe="") for v in found)])


class Mask:
    """Replaces known secret values in text with ``***``: a server may echo its own token
    to stderr, and stderr reaches errors and logs. Values under 4 characters are left
    alone (they would mask ordinary words).

    A stream shown in pieces (a long line cut into parts) is masked across them: ``cut``
    keeps back an end that may begin a secret, to be masked with what comes next, and
    ``unfinished`` hides such an end where a piece is shown before the rest comes."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = sorted({s for s in secrets if len(s) >= SHORTEST}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def cut(self, text: str) -> tuple[str, str]:
        """A piece of a stream that goes on: (the piece masked, up to an end that may be the
        start of a secret; that end, masked too, to put before what comes next)."""
        masked = self(text)
        at = len(masked) - self._start_at_end(masked)
        return masked[:at], masked[at:]

    def unfinished(self, text: str) -> str:
        """A piece of a stream shown before the rest comes: masked, and an end of 4 or more
        characters that is the start of a secret masked too (shorter ones would mask
        ordinary endings)."""
        shown, kept = self.cut(text)
        return shown + (REDACTED if len(kept) >= SHORTEST else kept)

    def _start_at_end(self, text: str) -> int:
        """The length of the longest end of ``text`` that is the start of a secret (0: none)."""
        found = 0
        for secret in self.secrets:
            for size in range(min(len(secret) - 1, len(text)), found, -1):
                if text.endswith(secret[:size]):
                    found = size
                    break
        return found

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def __repr__(self) -> str:
        return f"<Mask of {len(self.secrets)} value(s)>"


ELIDE_AT = 200  # characters of a string value shown before it is elided


def shown(value: Any, depth: int = 0) -> Any:
    """``value`` fit to show: secret-looking keys' values hidden, long strings and big
    lists elided, deep nesting cut (a fresh copy; the value is never changed)."""
    if depth > 8:
        return "…"
    if isinstance(value, dict):
        return {
            str(k): (
                REDACTED
                if isinstance(k, str) and is_secret_name(k)
                else redact_url(v)
                if k == "uri" and isinstance(v, str)  # a resource's ?api_key=
                else shown(v, depth + 1)
            )
            for k, v in list(value.items())[:50]
        }
    if isinstance(value, (list, tuple)):
        items = [shown(v, depth + 1) for v in value[:20]]
        if len(value) > 20:
            items.append(f"… {len(value) - 20} more")
        return items
    if isinstance(value, str) and len(value) > ELIDE_AT:
        return f"{value[:ELIDE_AT]}… ({len(value)} characters)"
    return value
