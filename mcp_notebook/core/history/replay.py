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
from collections.abc import Iterable, Mapping
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
    taken = {"client", "result", "os", "pytest", *added.values()}
    if not var.isidentifier() or keyword.iskeyword(var) or var in taken:
        var = next(f"server_{n}" for n in range(1, len(added) + 2) if f"server_{n}" not in taken)
    return var


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
    added: dict[str, str] = {}
    fixtures: list[str] = []
    tests: list[str] = []
    skip = sorted(set(volatile))
    for number, call in enumerate(successful(list(calls)), 1):
        config = configs.get(call.server)
        if config is None:
            tests.append(f"# skipped: {call.method} to server {call.server!r}, which has no config now\n")
            continue
        var = added.get(call.server)
        if var is None:
            var = added[call.server] = _variable(call.server, added)
            add = _add("server", config, secrets).replace("server = ", "return ", 1)
            fixtures.append(f'@pytest.fixture(scope="module")\ndef {var}(client):\n    {add}\n')
        what = re.sub(r"\W+", "_", str(call.name or call.method)).strip("_").lower()[:40]
        label = _one_line(
            f"{call.server}.{call.name}" if call.method != "resources/read" else f"{call.server} read {call.name}"
        )
        body = [f"def test_{number:03d}_{var}_{what}({var}):", "    " + _call(var, call, secrets)]
        body.append(f"    expect_ok(result, {label!r})")
        if exact:
            expected = comparable(call.method, call.result)
            body.append(f"    expected = {_literal(call.server, expected, secrets, 'the recorded value')}")
            body.append(f"    expect_same(result, {call.method!r}, expected, {label!r}, volatile={tuple(skip)!r})")
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
    if secrets.names:
        head.append("# Set these environment variables first (their values are not written here):")
        head += [f"#   {name}: {_one_line(what)}" for name, what in secrets.names.items()]
        head.append("")
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
    added: dict[str, str] = {}
    adds: list[str] = []
    body: list[str] = []
    for call in successful(list(calls)):
        config = configs.get(call.server)
        if config is None:
            body.append(f"# skipped: {call.method} to server {call.server!r}, which has no config now")
            continue
        var = added.get(call.server)
        if var is None:
            var = added[call.server] = _variable(call.server, added)
            adds.append(_add(var, config, secrets))
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
    if secrets.names:
        head.append("# Set these environment variables first (their values are not written here):")
        # A key may be a schema's property name, the server's: one comment line, whatever it holds.
        head += [f"#   {name}: {_one_line(what)}" for name, what in secrets.names.items()]
        head.append("")
    head += ["client = Client()", *adds, ""]
    tail = ["", "client.close()", ""]
    return "\n".join(head + body + tail)
