"""A plain Python script that replays a history's successful calls (``%mcp history --export``).

The script uses the Python API only (``from mcp_notebook import Client``) and runs outside
any notebook. Servers are added from their configs; every value config/servers.py and safety/redact.py would
hide (secret-looking env values, headers, arguments and URL parts, OAuth client secrets) is
read from an environment variable the script names, never written into it. So is each
secret found by its value (safety/detect.py) inside an argument, an env or header value, a
call's argument: a postgres URL's password, a ``ghp_…`` token, a bearer token inside a JSON
value; the text around it is kept (``'postgresql://app:' + os.environ[…] + '@db/x'``).

A value is written as Python literals. Python's parser takes about 200 nested brackets in
one expression, and a server's result may nest deeper: a value nested deeper than ``DEPTH``
is built in parts, each its own assignment before the line that uses it (``_part1 = {…}``),
so that a written file always compiles (and secrets deep in it are still read from the
environment).
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..config.entries import numbered_name
from ..config.servers import ServerConfig
from ..safety.detect import has_secret, is_secret_name, is_secret_setting, replace_secrets
from ..safety.redact import redact_url, replace_secret_args
from .calls import Call, successful

__all__ = ["DEPTH", "env_name", "pytest_module", "script"]

DEPTH = 32  # brackets one written expression nests at most


def env_name(server: str, key: str) -> str:
    """The environment variable a script reads ``key`` of ``server`` from: MCP_DEMO_API_KEY."""
    return "MCP_" + re.sub(r"[^A-Z0-9]+", "_", f"{server}_{key}".upper()).strip("_")


class _Secrets:
    """The variables a script reads, gathered as it is written (listed at its top), and the
    parts of deep values (``parts``: assignments, written before the line that uses them)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # variable → what it holds
        self.values: dict[str, str] = {}  # variable → the value it stands for (in memory only)
        self.parts: list[str] = []
        self.made = 0  # parts made in the whole file: each has its own name

    def part(self, literal: str) -> str:
        """A name standing for ``literal``, assigned in ``parts``."""
        self.made += 1
        self.parts.append(f"_part{self.made} = {literal}")
        return f"_part{self.made}"

    def lines(self, line: str) -> list[str]:
        """``line`` after the parts it uses (the parts taken)."""
        parts, self.parts = self.parts, []
        return [*parts, line]

    def ref(self, server: str, key: str, what: str, value: str) -> str:
        """The lookup of the variable ``value`` is read from: named after ``key``, and a
        name of its own when another value already has that one."""
        name = numbered_name(env_name(server, key), self.values, value)
        self.names.setdefault(name, what)
        self.values[name] = value
        return f"os.environ[{name!r}]"


def _text(server: str, text: str, secrets: _Secrets, what: str, *, paths: bool = True) -> str:
    """``text`` as a Python expression, each secret found in it by its value read from the
    environment (``paths``: keys in URL paths too, for what a person configured)."""
    if "\0" in text:  # it could hold a marker: as it is, or read whole
        return secrets.ref(server, "value", f"{what} of server {server}", text) if has_secret(text) else repr(text)
    refs: list[str] = []

    def hide(hint: str, value: str) -> str:
        refs.append(secrets.ref(server, hint, f"a {hint} in {what} of server {server}", value))
        return f"\0{len(refs) - 1}\0"

    return _joined(replace_secrets(text, hide, paths=paths), refs)


def _joined(marked: str, refs: list[str]) -> str:
    """A text holding markers ``\\0n\\0`` as an expression: its pieces and ``refs[n]`` added up."""
    pieces = re.split(r"\0(\d+)\0", marked)  # text, index, text, ...
    terms = [refs[int(p)] if i % 2 else repr(p) for i, p in enumerate(pieces) if i % 2 or p]
    return " + ".join(terms) or "''"


def _literal(server: str, value: Any, secrets: _Secrets, what: str, depth: int = 0) -> str:
    """``value`` as Python source; a secret-looking key's value, at any depth, read from
    the environment instead; what nests deeper than ``DEPTH`` made a part of its own."""
    if depth >= DEPTH and isinstance(value, dict | list) and value:
        return secrets.part(_literal(server, value, secrets, what))
    if isinstance(value, dict):
        return _mapping(server, value, secrets, what, depth)
    if isinstance(value, list):
        return "[" + ", ".join(_literal(server, v, secrets, what, depth + 1) for v in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"  # repr gives a bare inf or nan: a NameError
    if isinstance(value, str):  # data: a URI's path is content, not a key (paths=False)
        return _text(server, value, secrets, what, paths=False)
    return repr(value)


def _mapping(server: str, values: Mapping[str, Any], secrets: _Secrets, what: str, depth: int = 0) -> str:
    """A call's arguments or a recorded value: a secret-looking key's value read from the
    environment, and secrets found by their value in the others."""
    items = []
    for key, value in values.items():
        if isinstance(key, str) and is_secret_name(key):
            items.append(f"{key!r}: {secrets.ref(server, key, f'{what} {key} of server {server}', str(value))}")
        else:
            items.append(f"{key!r}: {_literal(server, value, secrets, what, depth + 1)}")
    return "{" + ", ".join(items) + "}"


def _settings(server: str, values: Mapping[str, Any], secrets: _Secrets, what: str) -> str:
    """A server's env, headers or OAuth settings, as a person configured them: a value
    whose name says it is secret (``OPENAI_KEY``, ``Authorization``) read from the
    environment whole; secrets found by their value in the others (a key in a URL's path
    too)."""
    items = []
    for key, value in values.items():
        if is_secret_setting(key):
            items.append(f"{key!r}: {secrets.ref(server, key, f'{what} {key} of server {server}', str(value))}")
        elif isinstance(value, str):
            items.append(f"{key!r}: {_text(server, value, secrets, f'{what} {key}')}")
        else:
            items.append(f"{key!r}: {_literal(server, value, secrets, what)}")
    return "{" + ", ".join(items) + "}"


def _args(server: str, args: list[str], secrets: _Secrets) -> str:
    """A server's arguments: the values of secret-looking options (``--token X``) and
    secrets found by their value in any argument read from the environment."""
    refs: list[str] = []

    def hide(name: str, value: str, whole: bool) -> str:
        refs.append(secrets.ref(server, f"arg_{name}", f"the {name} argument of server {server}", value))
        return f"\0{len(refs) - 1}\0"  # a marker no argument holds (a process takes no NUL), replaced below

    def found(hint: str, value: str) -> str:
        refs.append(secrets.ref(server, hint, f"a {hint} in an argument of server {server}", value))
        return f"\0{len(refs) - 1}\0"

    marked = [replace_secrets(arg, found) for arg in replace_secret_args(args, hide)]
    return "[" + ", ".join(_joined(arg, refs) for arg in marked) + "]"


def _add(var: str, config: ServerConfig, secrets: _Secrets) -> str:
    name = config.name
    parts = [repr(name)]
    if config.transport == "stdio":
        parts += [repr(config.command), _args(name, list(config.args), secrets)]
        if config.env:
            parts.append("env=" + _settings(name, config.env, secrets, "the env value"))
        if config.cwd:
            parts.append(f"cwd={config.cwd!r}")
    else:
        url = config.url or ""
        secret_url = redact_url(url, paths=True) != url  # a password or a token in it
        parts.append("url=" + (secrets.ref(name, "url", f"the URL of server {name}", url) if secret_url else repr(url)))
        if config.transport != "auto":
            parts.append(f"transport={config.transport!r}")
        if config.headers:
            parts.append("headers=" + _settings(name, config.headers, secrets, "the header"))
        if config.oauth:
            parts.append("oauth=" + _settings(name, config.oauth, secrets, "the OAuth setting"))
    if config.protocol != "auto":
        parts.append(f"protocol={config.protocol!r}")
    for key in ("startup_timeout", "request_timeout"):
        if getattr(config, key) is not None:
            parts.append(f"{key}={getattr(config, key)!r}")
    return f"{var} = client.add({', '.join(parts)})"


def _call(var: str, call: Call, secrets: _Secrets) -> str:
    params = call.params
    if call.method == "resources/read":
        uri = str(params.get("uri"))
        if redact_url(uri) != uri:  # a secret in it (?api_key=…): read from the environment
            key = f"uri_{sum(1 for n in secrets.names if n.startswith(env_name(call.server, 'uri_'))) + 1}"
            ref = secrets.ref(call.server, key, f"the resource URI {redact_url(uri)} of server {call.server}", uri)
            return f"result = {var}.read_resource({ref})"
        return f"result = {var}.read_resource({uri!r})"
    arguments = params.get("arguments") or {}
    what = "argument" if call.method == "tools/call" else "prompt argument"
    literal = _mapping(call.server, arguments, secrets, f"the {what}") if isinstance(arguments, dict) else "{}"
    fn = "call_tool" if call.method == "tools/call" else "get_prompt"
    return f"result = {var}.{fn}({params.get('name')!r}, {literal})"


def _one_line(text: str) -> str:
    """``text`` fit for a comment: no line break or other unprintable character can end it."""
    return "".join(c if c.isprintable() else "?" for c in text)


def _variable(server: str, added: dict[str, str]) -> str:
    """A Python name for ``server``'s handle, not one taken (``"a-b"`` and ``"a_b"`` are two)."""
    var = re.sub(r"\W", "_", server).lower() or "server"
    taken = {"client", "result", "os", "pytest", "expect_ok", "expect_same", "expected", *added.values()}
    if not var.isidentifier() or keyword.iskeyword(var) or var in taken or var.startswith("_part"):
        var = next(f"server_{n}" for n in range(1, len(added) + 2) if f"server_{n}" not in taken)
    return var


def _replayed(calls: Iterable[Call], configs: Mapping[str, ServerConfig]) -> Iterator[tuple[Call, str | None, Any]]:
    """Each call that ended well, with its server's Python name (None: it has no config now,
    so it is skipped) and, the first time that server comes, its config (else None)."""
    added: dict[str, str] = {}
    for call in successful(list(calls)):
        config = configs.get(call.server)
        first = config is not None and call.server not in added
        if first:
            added[call.server] = _variable(call.server, added)
        yield call, added.get(call.server), config if first else None


def _holds_secret(value: Any) -> bool:
    """Whether a recorded text (or a list of them) holds a secret found by its value."""
    if isinstance(value, list):
        return any(_holds_secret(v) for v in value)
    return isinstance(value, str) and has_secret(value, paths=False)


def _public(value: Any, hidden: set[str]) -> tuple[Any, set[str]]:
    """``value`` without its secret-looking keys, those in ``hidden`` and those whose text
    holds a secret found by its value (at any depth), and those keys' names: an exported
    test leaves them out of the comparison rather than write them."""
    found: set[str] = set()

    def strip(v: Any) -> Any:
        if isinstance(v, dict):
            kept = {}
            for key, item in v.items():
                if isinstance(key, str) and (is_secret_name(key) or key in hidden or _holds_secret(item)):
                    found.add(key)
                else:
                    kept[key] = strip(item)
            return kept
        if isinstance(v, list):
            return [strip(item) for item in v]
        return v

    return strip(value), found


def _variables_note(secrets: _Secrets) -> list[str]:
    """The lines at a file's top naming the environment variables it reads secrets from."""
    if not secrets.names:
        return []
    # A key may be a schema's property name, the server's: one comment line, whatever it holds.
    lines = ["# Set these environment variables first (their values are not written here):"]
    return [*lines, *(f"#   {name}: {_one_line(what)}" for name, what in secrets.names.items()), ""]


def pytest_module(
    calls: Iterable[Call], configs: Mapping[str, ServerConfig], *, exact: bool = False, volatile: Iterable[str] = ()
) -> str:
    """A pytest module replaying ``calls`` that ended well, one test each, asserting what was
    seen: each ends well and fits its tool's output schema; with ``exact``, its result is
    the recorded one, the ``volatile`` fields left out. It needs mcp-notebook and pytest
    only; each server starts once for the module, as it was added (secrets from the
    environment)."""
    from ...testing import comparable

    secrets = _Secrets()
    fixtures: list[str] = []
    tests: list[str] = []
    skip = sorted(set(volatile))
    for number, (call, var, new) in enumerate(_replayed(calls, configs), 1):
        if var is None:
            tests.append(f"# skipped: {call.method} to server {call.server!r}, which has no config now\n")
            continue
        if new is not None:
            add = secrets.lines(_add("server", new, secrets).replace("server = ", "return ", 1))
            fixtures.append(f'@pytest.fixture(scope="module")\ndef {var}(client):\n    ' + "\n    ".join(add) + "\n")
        name = str(call.name or call.method)
        if call.method == "resources/read":
            name = redact_url(name)  # a URI's ?api_key=…: the call reads it from the environment
        what = re.sub(r"[^0-9A-Za-z]+", "_", name).strip("_").lower()[:40]  # ASCII: a name Python takes
        label = _one_line(f"{call.server} read {name}" if call.method == "resources/read" else f"{call.server}.{name}")
        body = [f"def test_{number:03d}_{var}_{what}({var}):"]
        body += ["    " + line for line in secrets.lines(_call(var, call, secrets))]
        body.append(f"    expect_ok(result, {label!r})")
        cut = (call.reply() or ({}, None))[1] is not None  # kept cut (over 64 KiB): not its whole value
        if exact and cut:
            body.append("    # not compared exactly: the history kept this result cut (over 64 KiB)")
        elif exact:
            hidden = {"uri"} if name != str(call.name) else set()  # a URI with a secret in it: not written either
            expected, secret = _public(comparable(call.method, call.result), hidden)  # secret-looking fields too
            kept = tuple(sorted({*skip, *secret}))
            line = f"expected = {_literal(call.server, expected, secrets, 'the recorded value')}"
            body += ["    " + line for line in secrets.lines(line)]
            body.append(f"    expect_same(result, {call.method!r}, expected, {label!r}, volatile={kept!r})")
        tests.append("\n".join(body) + "\n")
    head = [
        '"""Tests of calls recorded by mcp-notebook (%mcp history --export --pytest): pytest THIS_FILE."""',
        "",
        "import os",
        "",
        "import pytest",
        "",
        "from mcp_notebook import Client",
        "from mcp_notebook.testing import expect_ok, expect_same",
        "",
    ]
    head += _variables_note(secrets)
    head += [
        "",
        '@pytest.fixture(scope="module")',
        "def client():",
        "    c = Client()",
        "    yield c",
        "    c.close()",
        "",
    ]
    text = "\n".join(head) + "\n" + "\n\n".join(fixtures + tests)
    return text.replace("\n\n\n\n", "\n\n\n")


def script(calls: Iterable[Call], configs: Mapping[str, ServerConfig]) -> str:
    """The script replaying ``calls`` that ended well (tool calls, resource reads, prompts),
    in order, against the servers ``configs`` describe (a server without one is skipped)."""
    secrets = _Secrets()
    adds: list[str] = []
    body: list[str] = []
    for call, var, new in _replayed(calls, configs):
        if var is None:
            body.append(f"# skipped: {call.method} to server {call.server!r}, which has no config now")
            continue
        if new is not None:
            adds += secrets.lines(_add(var, new, secrets))
        body += secrets.lines(_call(var, call, secrets))
        body.append("print(result.text)")
    head = [
        '"""Replays calls recorded by mcp-notebook (%mcp history --export)."""',
        "",
        "import os",
        "",
        "from mcp_notebook import Client",
        "",
    ]
    head += _variables_note(secrets)
    head += ["client = Client()", *adds, ""]
    tail = ["", "client.close()", ""]
    return "\n".join(head + body + tail)
