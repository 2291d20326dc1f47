"""Server definitions and the config files that hold them.

Reads Claude Code's ``.mcp.json`` (``{"mcpServers": {...}}``) and VS Code's ``mcp.json``
(``{"servers": {...}}``, JSON with comments). ``${VAR}`` and ``${VAR:-default}`` (also
VS Code's ``${env:VAR}`` and ``${workspaceFolder}``) are expanded in command, args, env,
cwd, url and headers.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .redact import redact_args, redact_mapping, redact_url

TRANSPORTS = ("stdio", "http", "sse", "auto")  # auto: Streamable HTTP, else legacy SSE
_TRANSPORT_ALIASES = {"streamable-http": "http", "streamableHttp": "http", "streamable_http": "http", "local": "stdio"}
_VAR = re.compile(r"\$\{([^}]*)\}")
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


@dataclass
class ServerConfig:
    """How to reach one server. ``transport`` is ``stdio``, ``http`` or ``sse``."""

    name: str
    transport: str = "stdio"
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    # OAuth (remote servers): client_id, client_secret, client_metadata_url, scopes, redirect_port
    oauth: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_server_name(self.name)
        if self.transport not in TRANSPORTS:
            raise ConfigError(
                f"server {self.name!r}: unknown transport {self.transport!r}; use stdio, http, sse or auto"
            )
        if self.transport == "stdio" and not self.command:
            raise ConfigError(f"server {self.name!r}: a stdio server needs a command")
        if self.transport != "stdio" and not self.url:
            raise ConfigError(f"server {self.name!r}: an {self.transport} server needs a url")

    def describe(self) -> str:
        if self.transport == "stdio":
            import shlex

            return shlex.join([self.command or "", *redact_args(self.args)])
        return redact_url(str(self.url))

    def __repr__(self) -> str:
        # env and header values are often secrets: show names only where they look like one.
        parts = [f"name={self.name!r}", f"transport={self.transport!r}"]
        if self.transport == "stdio":
            parts.append(f"command={self.command!r}")
            if self.args:
                parts.append(f"args={redact_args(self.args)!r}")
            if self.env:
                parts.append(f"env={redact_mapping(self.env)!r}")
            if self.cwd:
                parts.append(f"cwd={self.cwd!r}")
        else:
            parts.append(f"url={redact_url(str(self.url))!r}")
            if self.headers:
                parts.append(f"headers={redact_mapping(self.headers)!r}")
            if self.oauth:
                parts.append(f"oauth={redact_mapping({k: str(v) for k, v in self.oauth.items()})!r}")
        return f"ServerConfig({', '.join(parts)})"


def check_server_name(name: str) -> None:
    if not isinstance(name, str) or not _NAME.match(name) or "__" in name:
        raise ConfigError(f"invalid server name {name!r}: use letters, digits, '-', '_' and '.' (no '__')")


def load_config(path: str | os.PathLike[str]) -> dict[str, ServerConfig]:
    """Read a ``.mcp.json`` or VS Code ``mcp.json`` file into server configs by name."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such file; give the path of a .mcp.json or mcp.json") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read it ({e.strerror})") from None
    try:
        data = json.loads(_strip_jsonc(text))
    except json.JSONDecodeError as e:
        raise ConfigError(f"{p}: not valid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    # ${workspaceFolder} is the folder holding .vscode/, or the file's own folder.
    folder = p.resolve().parent
    if folder.name == ".vscode":
        folder = folder.parent
    return parse_config(data, source=str(p), workspace=str(folder))


def parse_config(
    data: Any, *, source: str = "config", workspace: str | None = None, environ: Mapping[str, str] | None = None
) -> dict[str, ServerConfig]:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a JSON object")
    key = "mcpServers" if "mcpServers" in data else "servers" if "servers" in data else None
    if key is None:
        raise ConfigError(f"{source}: no 'mcpServers' (Claude Code) or 'servers' (VS Code) object")
    servers = data[key]
    if not isinstance(servers, dict):
        raise ConfigError(f"{source}: {key} must be an object of servers by name")
    env = os.environ if environ is None else environ
    out: dict[str, ServerConfig] = {}
    for name, entry in servers.items():
        where = f"{source}: {key}.{name}"
        out[name] = _entry(name, entry, where, _Expander(env, workspace, where))
    return out


def _entry(name: str, entry: Any, where: str, expand: _Expander) -> ServerConfig:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: must be an object")
    kind = entry.get("type") or entry.get("transport")
    if kind is None:
        if "url" in entry:
            kind = "http"
        elif "command" in entry or "args" in entry:
            kind = "stdio"
        else:
            raise ConfigError(f"{where}: needs a command (a stdio server) or a url (an http or sse server)")
    kind = _TRANSPORT_ALIASES.get(kind, kind)
    if kind not in TRANSPORTS:
        raise ConfigError(f"{where}.type: unknown transport {kind!r}; use stdio, http or sse")
    try:
        if kind == "stdio":
            command = _string(entry, "command", where, required=True)
            return ServerConfig(
                name=name,
                transport="stdio",
                command=expand(command, "command"),
                args=[expand(a, f"args[{i}]") for i, a in enumerate(_strings(entry, "args", where))],
                env={k: expand(v, f"env.{k}") for k, v in _string_map(entry, "env", where).items()},
                cwd=expand(_string(entry, "cwd", where), "cwd") or None,
            )
        return ServerConfig(
            name=name,
            transport=kind,
            url=expand(_string(entry, "url", where, required=True), "url"),
            headers={k: expand(v, f"headers.{k}") for k, v in _string_map(entry, "headers", where).items()},
            oauth=_oauth(entry, where, expand),
        )
    except ConfigError as e:
        if str(e).startswith(where):
            raise
        raise ConfigError(f"{where}: {e}") from None


_OAUTH_KEYS = {"clientId": "client_id", "clientSecret": "client_secret", "clientMetadataUrl": "client_metadata_url",
               "scopes": "scopes", "redirectPort": "redirect_port"}  # fmt: skip


def _oauth(entry: dict[str, Any], where: str, expand: _Expander) -> dict[str, Any]:
    """``"oauth": {"clientId", "clientSecret", "clientMetadataUrl", "scopes", "redirectPort"}``
    (snake_case accepted too); ${VAR} works in each string."""
    value = entry.get("oauth")
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}.oauth: must be an object")
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = _OAUTH_KEYS.get(key) or (key if key in _OAUTH_KEYS.values() else None)
        if name is None:
            raise ConfigError(f"{where}.oauth.{key}: unknown; use {', '.join(_OAUTH_KEYS)}")
        if name == "redirect_port":
            if not isinstance(item, int) or not 0 <= item < 65536:
                raise ConfigError(f"{where}.oauth.{key}: must be a port number")
            out[name] = item
        elif isinstance(item, str):
            out[name] = expand(item, f"oauth.{key}")
        else:
            raise ConfigError(f"{where}.oauth.{key}: must be a string")
    return out


def _string(entry: dict[str, Any], key: str, where: str, required: bool = False) -> str:
    value = entry.get(key)
    if value is None:
        if required:
            raise ConfigError(f"{where}.{key}: missing; it is required")
        return ""
    if not isinstance(value, str):
        raise ConfigError(f"{where}.{key}: must be a string, not {type(value).__name__}")
    return value


def _strings(entry: dict[str, Any], key: str, where: str) -> list[str]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}.{key}: must be a list of strings")
    return value


def _string_map(entry: dict[str, Any], key: str, where: str) -> dict[str, str]:
    value = entry.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{where}.{key}: must be an object of strings")
    out = {}
    for k, v in value.items():
        if isinstance(v, (int, float, bool)):
            v = json.dumps(v)
        if not isinstance(v, str):
            raise ConfigError(f"{where}.{key}.{k}: must be a string")
        out[k] = v
    return out


class _Expander:
    def __init__(self, environ: Mapping[str, str], workspace: str | None, where: str) -> None:
        self.environ = environ
        self.workspace = workspace
        self.where = where

    def __call__(self, value: str, field_name: str) -> str:
        return _VAR.sub(lambda m: self._one(m.group(1), field_name), value)

    def _one(self, expr: str, field_name: str) -> str:
        where = f"{self.where}.{field_name}"
        if expr == "workspaceFolder" and self.workspace is not None:
            return self.workspace
        if expr.startswith("input:"):
            raise ConfigError(f"{where}: ${{{expr}}} (a VS Code input) is not supported; use ${{VAR}} and set VAR")
        if expr.startswith("env:"):
            expr = expr[4:]
        name, sep, default = expr.partition(":-")
        if not name:
            raise ConfigError(f"{where}: empty variable reference '${{{expr}}}'")
        value = self.environ.get(name)
        if value is None or (sep and value == ""):
            if sep:
                return default
            raise ConfigError(
                f"{where}: variable ${{{name}}} is not set; set it (os.environ or %env {name}=...) "
                f"or write ${{{name}:-default}}"
            )
        return value


def _strip_jsonc(text: str) -> str:
    """Remove // and /* */ comments and trailing commas outside strings (VS Code's JSONC)."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            # Keep newlines so that error line numbers still match the file.
            out.append("\n" * text.count("\n", i, n if j < 0 else j))
            i = n if j < 0 else j + 2
            continue
        elif c == "," and text[i + 1 :].lstrip()[:1] in ("}", "]"):
            pass  # a trailing comma
        else:
            out.append(c)
        i += 1
    return "".join(out)
