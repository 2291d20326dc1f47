"""A plain Python script that replays a history's successful calls (``%mcp history --export``).

The script uses the Python API only (``from mcp_notebook import Client``) and runs outside
any notebook. Servers are added from their configs; every value config/servers.py and safety/redact.py would
hide (secret-looking env values, headers, arguments and URL parts, OAuth client secrets) is
read from an environment variable the script names, never written into it.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..config.servers import ServerConfig
from ..safety.redact import is_secret_name, redact_url, replace_secret_args
from .calls import Call, successful

__all__ = ["env_name", "pytest_module", "script"]


def env_name(server: str, key: str) -> str:
    """The environment variable a script reads ``key`` of ``server`` from: MCP_DEMO_API_KEY."""
    return "MCP_" + re.sub(r"[^A-Z0-9]+", "_", f"{server}_{key}".upper()).strip("_")


class _Secrets:
    """The variables a script reads, gathered as it is written (listed at its top)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # variable → what it holds

    def ref(self, server: str, key: str, what: str) -> str:
        name = env_name(server, key)
        self.names[name] = what
        return f"os.environ[{name!r}]"


def _literal(server: str, value: Any, secrets: _Secrets, what: str) -> str:
    """``value`` as Python source; a secret-looking key's value, at any depth, read from
    the environment instead."""
    if isinstance(value, dict):
        return _mapping(server, value, secrets, what)
    if isinstance(value, list):
        return "[" + ", ".join(_literal(server, v, secrets, what) for v in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"  # repr gives a bare inf or nan: a NameError
    return repr(value)


def _mapping(server: str, values: Mapping[str, Any], secrets: _Secrets, what: str) -> str:
    items = []
    for key, value in values.items():
        if isinstance(key, str) and is_secret_name(key):
            items.append(f"{key!r}: {secrets.ref(server, key, f'{what} {key} of server {server}')}")
        else:
            items.append(f"{key!r}: {_literal(server, value, secrets, what)}")
    return "{" + ", ".join(items) + "}"


def _args(server: str, args: list[str], secrets: _Secrets) -> str:
    refs: list[str] = []

    def hide(name: str, value: str, whole: bool) -> str:
        refs.append(secrets.ref(server, f"arg_{name}", f"the {name} argument of server {server}"))
        return f"\0{len(refs) - 1}\0"  # a marker no argument holds, replaced below

    out = []
    for arg in replace_secret_args(args, hide):
        pieces = re.split(r"\0(\d+)\0", arg)  # text, index, text, ...
        terms = [refs[int(p)] if i % 2 else repr(p) for i, p in enumerate(pieces) if i % 2 or p]
        out.append(" + ".join(terms) or "''")
    return "[" + ", ".join(out) + "]"


def _add(var: str, config: ServerConfig, secrets: _Secrets) -> str:
    name = config.name
    parts = [repr(name)]
    if config.transport == "stdio":
        parts += [repr(config.command), _args(name, list(config.args), secrets)]
        if config.env:
            parts.append("env=" + _mapping(name, config.env, secrets, "the env value"))
        if config.cwd:
            parts.append(f"cwd={config.cwd!r}")
    else:
        url = config.url or ""
        secret_url = redact_url(url) != url  # a password or a token in it
        parts.append("url=" + (secrets.ref(name, "url", f"the URL of server {name}") if secret_url else repr(url)))
        if config.transport != "auto":
            parts.append(f"transport={config.transport!r}")
        if config.headers:
            parts.append("headers=" + _mapping(name, config.headers, secrets, "the header"))
        if config.oauth:
            parts.append("oauth=" + _mapping(name, config.oauth, secrets, "the OAuth setting"))
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
            ref = secrets.ref(call.server, key, f"the resource URI {redact_url(uri)} of server {call.server}")
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
    if not var.isidentifier() or keyword.iskeyword(var) or var in taken:
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


def _public(value: Any, hidden: set[str]) -> tuple[Any, set[str]]:
    """``value`` without its secret-looking keys and those in ``hidden`` (at any depth), and
    those keys' names: an exported test leaves them out of the comparison rather than write them."""
    found: set[str] = set()

    def strip(v: Any) -> Any:
        if isinstance(v, dict):
            kept = {}
            for key, item in v.items():
                if isinstance(key, str) and (is_secret_name(key) or key in hidden):
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
            add = _add("server", new, secrets).replace("server = ", "return ", 1)
            fixtures.append(f'@pytest.fixture(scope="module")\ndef {var}(client):\n    {add}\n')
        name = str(call.name or call.method)
        if call.method == "resources/read":
            name = redact_url(name)  # a URI's ?api_key=…: the call reads it from the environment
        what = re.sub(r"[^0-9A-Za-z]+", "_", name).strip("_").lower()[:40]  # ASCII: a name Python takes
        label = _one_line(f"{call.server} read {name}" if call.method == "resources/read" else f"{call.server}.{name}")
        body = [f"def test_{number:03d}_{var}_{what}({var}):", "    " + _call(var, call, secrets)]
        body.append(f"    expect_ok(result, {label!r})")
        cut = (call.reply() or ({}, None))[1] is not None  # kept cut (over 64 KiB): not its whole value
        if exact and cut:
            body.append("    # not compared exactly: the history kept this result cut (over 64 KiB)")
        elif exact:
            hidden = {"uri"} if name != str(call.name) else set()  # a URI with a secret in it: not written either
            expected, secret = _public(comparable(call.method, call.result), hidden)  # secret-looking fields too
            kept = tuple(sorted({*skip, *secret}))
            body.append(f"    expected = {_literal(call.server, expected, secrets, 'the recorded value')}")
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
            adds.append(_add(var, new, secrets))
        body.append(_call(var, call, secrets))
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
