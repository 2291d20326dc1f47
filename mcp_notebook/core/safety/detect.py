"""Secrets found by their value, whatever the key that holds them is called.

A config copied from another client keeps secrets in places no key name gives away: a
password in a ``postgres://user:pw@host`` argument, a bearer token inside a JSON env value,
a key in a URL's path or query (``?key=``, ``?code=``), an ``Ocp-Apim-Subscription-Key: …``
header argument, a bare ``ghp_…`` token. ``secret_spans(text)`` finds them; ``mask_secrets``
hides them (what is shown), and config saving puts ``${VAR}`` references in their place
(core/config/entries.py). A ``${VAR}`` reference is never taken for a secret.

Names count too, more broadly than for data: ``is_secret_setting`` adds ``KEY``, ``PAT``,
``PWD`` and connection strings (``DATABASE_URL``) as words of a setting's name, so
``OPENAI_KEY`` and ``GITHUB_PAT`` are secrets while ``keyboard``, ``KEY_FILE``, ``SORT_KEY``
or ``--primary-key`` are not. A name that says where a secret is or what kind it is
(``TOKEN_FILE``, ``AUTH_TYPE``, ``MAX_TOKENS``) holds none, and neither does a value that
is a number or a switch (``max_tokens=1000``, ``auth: true``).

A key in a URL's path (``/s/<random>/``, ``/key/<value>/``) is looked for only where
``paths`` says so: in what a person configured (a server's URL, its arguments and env).
A resource's URI or an address in data names content (``/file/d/<id>/view``,
``/users/<id>``): there only a password and secret query values are secrets.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

REDACTED = "***"
SHORTEST = 4  # a found value shorter than this is left alone: it would mask ordinary words

# "auth" but not "author" (AUTHOR_NAME, GIT_AUTHOR_EMAIL) nor "authority"; "authorization" is.
_SECRET_NAME = re.compile(
    r"(token|secret|passw(or)?d|api[-_]?key|auth(?!or)|authori[sz]ation|credential|bearer|cookie|session[-_]?id"
    r"|private[-_]?key|assertion)",
    re.IGNORECASE,
)
# Last words that say where a secret is or what kind it is, not the secret (TOKEN_FILE,
# AUTH_TYPE, SECRET_NAME); an id is one after "session" or "secret" (SESSION_ID, a Vault
# SECRET_ID). AUTH_HEADER holds a header's value ("Bearer …"): not among them.
_WHERE_LAST = frozenset({"file", "path", "dir", "name", "id", "ids", "type", "env", "var", "location"})
_SECRET_IDS = frozenset({"session", "secret"})
# Words that make a name a measure or a format (MAX_TOKENS, TOKEN_LIMIT, PASSWORD_MIN_LENGTH,
# SIGNATURE_ALGORITHM, PASS_THROUGH), whatever secret word is beside them.
_MEASURES = frozenset({"public", "prefix", "suffix", "algorithm", "alg", "through", "max", "min", "limit", "length",
                       "len", "size", "count", "format", "field", "column", "index"})  # fmt: skip
# And kinds of keys a database has (SORT_KEY, --primary-key, REDIS_KEY_PREFIX): for KEY,
# PAT, PASS … only (a PASSWORD_HASH or a CACHE_TOKEN is still secret).
_KEY_KINDS = frozenset({"sort", "primary", "partition", "foreign", "composite", "unique", "hash", "range", "cache",
                        "lookup"})  # fmt: skip


def _words(name: str) -> list[str]:
    words = name_words(name)
    while words and words[-1].isdigit():  # API_KEY_2
        words.pop()
    return words


def _says_where_or_what(words: list[str]) -> bool:
    """Whether a name's words make it a place, a name, a kind or a measure of a secret."""
    if not words:
        return True
    if words[-1] in ("id", "ids") and len(words) > 1 and words[-2] in _SECRET_IDS:
        return False
    return words[-1] in _WHERE_LAST or bool(_MEASURES.intersection(words))


def is_secret_name(name: str) -> bool:
    """Whether a header, env var, option or data field's name usually carries a secret:
    ``token``, ``secret``, ``password``, ``auth`` … in it, unless the name says where the
    secret is or what kind it is (``TOKEN_FILE``, ``AUTH_TYPE``, ``MAX_TOKENS``)."""
    return bool(_SECRET_NAME.search(name)) and not _says_where_or_what(_words(name))


_PLAIN_VALUES = frozenset({"true", "false", "yes", "no", "on", "off"})


def is_switch(value: str) -> bool:
    """Whether a value under a secret-looking name is a switch (``auth: true``): no secret
    whatever the name says."""
    return value.strip().lower() in _PLAIN_VALUES


def is_plain_value(value: str) -> bool:
    """A switch or a number: not worth masking wherever it appears (a configured secret's
    value is masked in all output; ``1000`` would hide every count). Where a number stands
    under a secret's name (``password=123456``) it is masked: a PIN is a number."""
    return is_switch(value) or value.strip().replace(".", "", 1).isdigit()


# A value that is only a reference to a variable: where a secret comes from, shown as written.
REFERENCE = re.compile(r"\$\{[^{}]*\}")


_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SECRET_WORDS = frozenset({"key", "apikey", "pat", "pwd", "pass", "passphrase", "dsn", "sas", "signature"})
_STORE_WORDS = frozenset({"database", "db", "postgres", "postgresql", "pg", "mysql", "mariadb", "mongo",
                          "mongodb", "redis", "connection", "conn", "sql", "mssql", "amqp", "rabbitmq"})  # fmt: skip
_ADDRESS_WORDS = frozenset({"url", "uri", "string", "str", "dsn"})
# For KEY, PAT, PASS … (words ordinary elsewhere) more says where or what: API_KEY_HEADER
# names a header; SORT_KEY, PUBLIC_KEY, REDIS_KEY_PREFIX, MAX_KEY_LENGTH a name or a measure.
_NOT_SECRET_LAST = _WHERE_LAST | {"header"}
_NOT_SECRET_QUALIFIERS = _MEASURES | _KEY_KINDS
# A path segment that names the key after it (/key/VALUE/, /token/VALUE/): whole words only.
_PATH_NAMES = frozenset({"key", "keys", "apikey", "api_key", "api-key", "token", "tokens", "secret", "secrets",
                         "password", "passwd", "access_token", "access-token", "sig", "signature"})  # fmt: skip
# Query parameters that carry a secret although the word is ordinary elsewhere (Azure
# Functions' ?code=, signed URLs' ?sig= and ?signature=).
_QUERY_WORDS = frozenset({"code", "sig", "signature", "x-amz-signature", "x-goog-signature", "x-amz-credential"})


def name_words(name: str) -> list[str]:
    """``["openai", "api", "key"]`` from ``OPENAI_API_KEY``, ``openaiApiKey`` or ``openai-api-key``."""
    return [w.lower() for w in _WORDS.findall(name)]


def is_secret_setting(name: str) -> bool:
    """Whether a setting's name (env var, header, option, query parameter) says it holds a
    secret: ``is_secret_name``'s words, and ``KEY``, ``PAT``, ``PWD`` as words, and a
    database's address (``DATABASE_URL``, ``MONGO_URI``, ``CONNECTION_STRING``); a name that
    ends in ``FILE``, ``PATH``, ``ID`` or ``NAME`` holds where a secret is, not the secret;
    ``KEY``, ``PAT``, ``PASS`` … count as the last word only (a trailing number aside), and
    not beside a word that makes them a name or a measure (``SORT_KEY``, ``PUBLIC_KEY``,
    ``REDIS_KEY_PREFIX``, ``MAX_KEY_LENGTH``)."""
    if is_secret_name(name):
        return True
    words = _words(name)
    if not words or words[-1] in _NOT_SECRET_LAST or _NOT_SECRET_QUALIFIERS.intersection(words):
        return False
    if words[-1] in _SECRET_WORDS:
        return True
    return bool(_STORE_WORDS.intersection(words)) and bool(_ADDRESS_WORDS.intersection(words))


def is_secret_parameter(name: str) -> bool:
    """Whether a URL query parameter or ``name=value`` pair says it holds a secret."""
    return is_secret_setting(name) or name.lower() in _QUERY_WORDS


class Span(NamedTuple):
    """Where a secret is in a text (``text[start:end]``), and a word for what it is (a
    variable's name is made of it: ``password``, ``token``, a parameter's or header's name)."""

    start: int
    end: int
    hint: str


# Known token shapes: issuers publish these prefixes so that scanners find leaked tokens.
_TOKENS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("api_key", re.compile(r"\b(?:sk|rk)-[A-Za-z0-9_-]{20,}")),  # OpenAI, Anthropic (sk-ant-…), others
    ("api_key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}")),  # Stripe
    ("slack_token", re.compile(r"\bxox[abpre]-[A-Za-z0-9-]{10,}")),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{30,}")),
    ("hf_token", re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    ("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{30,}")),
    # A JWT. It starts where no part of one is before it: on a long run of "eyJ-" a JWT that
    # may start at each "eyJ" would be run to the run's end from each (quadratic). The
    # parts hold no dot, so each is run over once.
    ("token", re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*")),
)
# A scheme starts where no scheme character is before it, and is short: on a long run of
# letters a scheme that may start anywhere and run on would be tried at each place (quadratic).
_SCHEME = r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,31}://"
_USERINFO = re.compile(_SCHEME + r"([^\s/?#@:\"']*):([^\s/?#@\"']+)@")
_PAIR = re.compile(r"(?:(?<=[?&;,\s])|^)([A-Za-z][\w.-]{0,63})\s*=\s*([^&;,\s#\"'<>]+)")
_CREDENTIAL = re.compile(r"\b(?:bearer|basic|dpop|token)\s+([A-Za-z0-9._~+/=-]{8,})", re.IGNORECASE)
_HEADER = re.compile(r"(?:(?<=[\s\"'{,=])|^)([A-Za-z][A-Za-z0-9_-]{1,63})\"?\s*:\s*\"?([^\s\"',;{}]+)")
URL = re.compile(_SCHEME + r"[^\s\"'<>]+")
_SEGMENT = re.compile(r"/([^/?#]+)")
_DIGEST = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_WEB = ("http", "https", "ws", "wss")  # a server's address: a key in its path is a secret
_RANDOM = re.compile(r"[A-Za-z0-9_~.-]{20,}")


def looks_random(text: str) -> bool:
    """Whether a path segment looks like a generated key (long, letters and digits mixed,
    high entropy) rather than a word, a name, a version or a digest (a git commit's 40 hex
    digits, a SHA-256's 64: addresses of content, not keys)."""
    if not _RANDOM.fullmatch(text) or not any(c.isdigit() for c in text) or not any(c.isalpha() for c in text):
        return False
    if _DIGEST.fullmatch(text):
        return False
    core = re.sub(r"[_~.-]", "", text)
    if len(core) < 20:
        return False
    counts = Counter(core)
    entropy = -sum(n / len(core) * math.log2(n / len(core)) for n in counts.values())
    return entropy >= 3.5


def secret_spans(text: str, *, paths: bool = True) -> list[Span]:
    """The secrets found in ``text`` by their value, in order, not overlapping. ``paths``:
    keys in URL paths too (a long random segment of a web address, a segment after
    ``/key/``): for what a person configured, not for resource URIs or data."""
    found: list[Span] = []
    for hint, pattern in _TOKENS:
        found += [Span(m.start(), m.end(), hint) for m in pattern.finditer(text)]
    found += [Span(m.start(2), m.end(2), "password") for m in _USERINFO.finditer(text)]
    for m in _PAIR.finditer(text):
        if is_secret_parameter(m.group(1)) and not is_switch(m.group(2)):
            found.append(Span(m.start(2), m.end(2), m.group(1)))
    for m in _CREDENTIAL.finditer(text):  # "token expired" is a sentence: a credential has digits or length
        if len(m.group(1)) >= 20 or any(c.isdigit() for c in m.group(1)):
            found.append(Span(m.start(1), m.end(1), "token"))
    for m in _HEADER.finditer(text):
        name = m.group(1)
        value = m.group(2)
        if (
            is_secret_setting(name)
            and value.lower() not in ("bearer", "basic", "token", "dpop")
            and not is_switch(value)
        ):
            found.append(Span(m.start(2), m.end(2), name))
    for url in URL.finditer(text) if paths else ():
        # A resource's URI (repo://…/sha/…) names content: there only a key a name points at.
        web = url.group(0).split(":", 1)[0].lower() in _WEB
        path = url.group(0).split("?", 1)[0].split("#", 1)[0]
        after_scheme = path.find("://") + 3
        host_end = path.find("/", after_scheme)
        if host_end < 0:
            continue
        previous = ""
        for m in _SEGMENT.finditer(path, host_end):
            segment = m.group(1)
            named = previous.lower() in _PATH_NAMES  # /key/VALUE/, /token/VALUE/ (not /oauth/, /author/)
            if named or (web and looks_random(segment)):
                found.append(Span(url.start() + m.start(1), url.start() + m.end(1), previous if named else "path_key"))
            previous = segment
    return _merged([s for s in found if s.end - s.start >= SHORTEST and "${" not in text[s.start : s.end]])


def _merged(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if out and span.start < out[-1].end:
            last = out[-1]
            out[-1] = Span(last.start, max(last.end, span.end), last.hint)
        else:
            out.append(span)
    return out


def has_secret(text: str, *, paths: bool = True) -> bool:
    return bool(secret_spans(text, paths=paths))


def replace_secrets(text: str, replace: Callable[[str, str], str], *, paths: bool = True) -> str:
    """``text`` with each secret found in it by its value replaced by ``replace(hint,
    value)``: ``***`` where it is shown, a ``${VAR}`` reference where config is saved
    (config/entries.py), an environment lookup in an exported script (history/replay.py)."""
    parts: list[str] = []
    at = 0
    for span in secret_spans(text, paths=paths):  # built once: a rebuild per secret is quadratic
        parts += [text[at : span.start], replace(span.hint, text[span.start : span.end])]
        at = span.end
    return "".join([*parts, text[at:]])


def mask_secrets(text: str, *, paths: bool = True) -> str:
    """``text`` with each secret found by its value replaced by ``***``."""
    return replace_secrets(text, lambda hint, value: REDACTED, paths=paths)


__all__ = [
    "REDACTED",
    "REFERENCE",
    "SHORTEST",
    "URL",
    "Span",
    "has_secret",
    "is_plain_value",
    "is_switch",
    "is_secret_name",
    "is_secret_parameter",
    "is_secret_setting",
    "looks_random",
    "mask_secrets",
    "name_words",
    "replace_secrets",
    "secret_spans",
]
