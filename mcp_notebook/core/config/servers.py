"""Server definitions and the config files that hold them.

Reads Claude Code's ``.mcp.json`` (``{"mcpServers": {...}}``) and VS Code's ``mcp.json``
(``{"servers": {...}}``, JSON with comments). ``${VAR}`` and ``${VAR:-default}`` (also
VS Code's ``${env:VAR}`` and ``${workspaceFolder}``, Cursor's ``${userHome}``) are
expanded in command, args, env, envFile, cwd, url and headers. A key that is not
supported is ignored with a ConfigWarning naming it; it never fails the load. Our own
``"protocol"`` key pins the era (auto, legacy or a version).

What a file and a ServerConfig may hold is written as JSON Schemas (configschema.py) and
checked by configcheck.check; this module reads what passed."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import ConfigError, ConfigWarning, ToolExcluded
from ..auth.settings import oauth_problem
from ..safety.redact import redact_args, redact_mapping, redact_url
from .check import check
from .files import parse_json, read_regular
from .jsonc import strip_jsonc
from .schema import (
    FORMATS,
    OAUTH_KEYS,
    SERVER_CONFIG,
    SERVER_NAME,
    SERVERS,
    TRANSPORT_ALIASES,
    TRANSPORTS,
    plain_name,
    plainly_valid,
)

JSON = dict[str, Any]
# A ``${…}`` reference as written: group 1 is what is inside (``VAR``, ``env:VAR``, ``VAR:-default``).
REFERENCE = re.compile(r"\$\{([^}]*)\}")


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
    disabled: bool = False  # registered but not connected until restarted
    # Seconds; None: the client's Settings.
    startup_timeout: float | None = None
    request_timeout: float | None = None
    # The protocol era: "auto" (probe server/discover, fall back to initialize), "legacy"
    # (initialize only) or one dated version (protocol.PROTOCOL_CHOICES).
    protocol: str = "auto"
    # Where it came from: "kernel" (added here), "user", "project", "local" or a file's path.
    source: str = "kernel"
    # The tools used, as names or globs: only those enabled (None: all), none disabled.
    enabled_tools: list[str] | None = None
    disabled_tools: list[str] = field(default_factory=list)
    # Tool calls in flight at once (None: no limit); more wait their turn.
    max_concurrency: int | None = None
    # Tools (names or globs) that run without asking, though annotated destructive.
    allowed_tools: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not plainly_valid(vars(self)):  # (jsonschema only for one that may be wrong: slow to import)
            check(vars(self), SERVER_CONFIG)
        problem = oauth_problem(self.oauth) if self.oauth else None
        if problem is not None:
            raise ConfigError(f"server {self.name!r}: {problem}")

    def tool_excluded(self, tool: str | JSON) -> str | None:
        """Why ``tool`` (a name, or a listing's entry) is left out: the setting and where it
        is; None if it is used."""
        name = tool.get("name") if isinstance(tool, dict) else tool
        if not isinstance(name, str):
            return None
        where = "%mcp add" if self.source == "kernel" else self.source
        for pattern in self.disabled_tools:
            if fnmatch.fnmatchcase(name, pattern):
                return f"disabledTools {pattern!r} ({where})"
        if self.enabled_tools is not None and not any(fnmatch.fnmatchcase(name, p) for p in self.enabled_tools):
            return f"enabledTools {self.enabled_tools!r} ({where}), which it is not in"
        return None

    def check_tool(self, tool: str) -> None:
        """ToolExcluded if the tool lists leave ``tool`` out: nothing is sent."""
        excluded = self.tool_excluded(tool)
        if excluded is not None:
            raise ToolExcluded(
                f"tool {tool!r} of server {self.name!r} is left out by {excluded}; "
                f"%mcp tools {self.name} --all lists what is left out"
            )

    @property
    def executable(self) -> str | None:
        """The command that runs: ``python`` means this Python (see resolve_command)."""
        return resolve_command(self.command) if self.command else self.command

    def describe(self) -> str:
        """The command line (``python → /venv/bin/python -m …`` when python is resolved) or
        the URL, secrets hidden."""
        if self.transport == "stdio":
            import shlex

            line = shlex.join([self.executable or "", *redact_args(self.args)])
            return line if self.executable == self.command else f"{self.command} → {line}"
        return redact_url(str(self.url), paths=True)

    def login(self) -> str | None:
        """How this client is authorized, in a few words (None: a stdio server, which needs
        nothing): a header it sends, a grant no person takes part in, or a person's login."""
        if self.transport == "stdio":
            return None
        if any(k.lower() == "authorization" for k in self.headers):
            return "Authorization header"
        oauth = self.oauth or {}
        grant = oauth.get("grant") or "authorization_code"
        if grant == "client_credentials":
            how = "private key" if oauth.get("private_key") or oauth.get("private_key_file") else "client secret"
            return f"OAuth client_credentials ({how})"
        if grant == "jwt_bearer":
            return "OAuth jwt_bearer (workload identity)"
        if grant == "id_jag":
            return "OAuth id_jag (enterprise identity provider)"
        return "OAuth login by a person, if the server asks"

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
            parts.append(f"url={redact_url(str(self.url), paths=True)!r}")
            if self.headers:
                parts.append(f"headers={redact_mapping(self.headers)!r}")
            if self.oauth:
                parts.append(f"oauth={redact_mapping({k: str(v) for k, v in self.oauth.items()})!r}")
        if self.disabled:
            parts.append("disabled=True")
        for key in ("startup_timeout", "request_timeout"):
            if getattr(self, key) is not None:
                parts.append(f"{key}={getattr(self, key)!r}")
        if self.protocol != "auto":
            parts.append(f"protocol={self.protocol!r}")
        if self.enabled_tools is not None:
            parts.append(f"enabled_tools={self.enabled_tools!r}")
        if self.disabled_tools:
            parts.append(f"disabled_tools={self.disabled_tools!r}")
        if self.max_concurrency is not None:
            parts.append(f"max_concurrency={self.max_concurrency!r}")
        if self.allowed_tools:
            parts.append(f"allowed_tools={self.allowed_tools!r}")
        if self.source != "kernel":
            parts.append(f"source={self.source!r}")
        return f"ServerConfig({', '.join(parts)})"


def _python_names() -> frozenset[str]:
    major, minor = sys.version_info[:2]
    names = {"python", f"python{major}", f"python{major}.{minor}"}
    if sys.platform == "win32":
        names |= {f"{n}.exe" for n in names}
    return frozenset(names)


PYTHON_NAMES = _python_names()


def resolve_command(command: str) -> str:
    """``python``, ``python3`` and ``python3.X`` (this version) as a server's command mean
    this interpreter, as ``%pip`` and jupyter_client read them: a kernel from a venv that is
    not on PATH still runs its own Python. Any other command is left to PATH."""
    if sys.executable and command in PYTHON_NAMES:
        return sys.executable
    return command


def check_server_name(name: str) -> None:
    if not plain_name(name):
        check({"name": name}, SERVER_NAME)


def load_config(path: str | os.PathLike[str]) -> dict[str, ServerConfig]:
    """Read a ``.mcp.json`` or VS Code ``mcp.json`` file into server configs by name (each
    with ``source`` set to the path)."""
    data = read_json(path)
    configs = parse_config(data, source=str(path), workspace=workspace_of(path))
    for config in configs.values():
        config.source = os.fspath(path)
    return configs


def workspace_of(path: str | os.PathLike[str]) -> str:
    """``${workspaceFolder}``: the folder holding .vscode/, or the file's own folder."""
    folder = Path(path).resolve().parent
    return str(folder.parent if folder.name == ".vscode" else folder)


def read_json(path: str | os.PathLike[str], *, missing_ok: bool = False) -> Any:
    """A config file's JSON (comments and trailing commas allowed); ``{}`` for a missing
    file when ``missing_ok``."""
    p = Path(path)
    try:
        text = read_regular(p, f"{p}", "give the path of a .mcp.json or mcp.json file").decode("utf-8")
    except FileNotFoundError:
        if missing_ok:
            return {}
        raise ConfigError(f"{p}: no such file; give the path of a .mcp.json or mcp.json") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read it ({e.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not UTF-8 text") from None
    return parse_json(text, p)


def servers_key(data: Any, source: str) -> str:
    """``mcpServers`` (Claude Code) or ``servers`` (VS Code): the key a file keeps servers under."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a JSON object")
    key = "mcpServers" if "mcpServers" in data else "servers" if "servers" in data else None
    if key is None:
        raise ConfigError(f"{source}: no 'mcpServers' (Claude Code) or 'servers' (VS Code) object")
    return key


def parse_config(
    data: Any,
    *,
    source: str = "config",
    workspace: str | None = None,
    environ: Mapping[str, str] | None = None,
    key: str | None = None,
    expand: bool = True,
) -> dict[str, ServerConfig]:
    """Server configs from a file's parsed JSON; ``key`` names where the servers are
    (default: ``mcpServers`` or ``servers``, whichever the file has). ``expand=False``: for
    showing only (config nobody trusted yet): ``${VAR}`` stays as written, no envFile is read."""
    key = key or servers_key(data, source)
    check(data, FORMATS[key], source=source)
    env = os.environ if environ is None else environ
    out: dict[str, ServerConfig] = {}
    for name, entry in data.get(key, {}).items():
        where = f"{source}: {key}.{name}"
        kind = _kind(entry)
        check(entry, SERVERS[kind], source=source, base=(key, name))
        out[name] = _entry(name, kind, entry, where, _Expander(env, workspace, where, literal=not expand), workspace)
    return out


def _warn(message: str) -> None:
    warnings.warn(message, ConfigWarning, stacklevel=4)


def _kind(entry: dict[str, Any]) -> str:
    """stdio, http, sse or auto: ``type`` (or ``transport``), else http for a url and stdio
    for a command (the schema has made sure there is one of these)."""
    kind = entry.get("type") or entry.get("transport") or ("http" if "url" in entry else "stdio")
    return TRANSPORT_ALIASES.get(kind, kind)


def _options(entry: dict[str, Any], where: str) -> dict[str, Any]:
    """disabled, protocol, the per-server timeouts (Claude Code's ``timeout``, in
    milliseconds, the request timeout; Codex's ``startup_timeout_sec`` and
    ``tool_timeout_sec``), the tools used (``enabledTools``/``disabledTools``, or
    Codex's ``enabled_tools``/``disabled_tools``), ``maxConcurrency`` and the tools that never
    ask (``alwaysAllow``, or Cline's ``autoApprove``)."""
    out: dict[str, Any] = {"disabled": entry.get("disabled", False), "protocol": entry.get("protocol", "auto")}
    timeout = entry.get("timeout")
    if timeout is not None:
        if timeout < 1000:
            # Claude Code ignores these too; a bare 60 is usually meant as seconds (Cline).
            _warn(
                f"{where}.timeout: {timeout:g} is in milliseconds, and below 1000 it is ignored; "
                f"write {timeout * 1000:g} for {timeout:g} s"
            )
        else:
            out["request_timeout"] = timeout / 1000
    for key, name in (("startup_timeout_sec", "startup_timeout"), ("tool_timeout_sec", "request_timeout")):
        if entry.get(key) is not None:
            out[name] = float(entry[key])
    for ours, codex, name in (("enabledTools", "enabled_tools", "enabled_tools"),
                              ("disabledTools", "disabled_tools", "disabled_tools")):  # fmt: skip
        patterns = entry.get(ours, entry.get(codex))
        if patterns is not None:
            out[name] = list(patterns)
    if entry.get("maxConcurrency") is not None:
        out["max_concurrency"] = int(entry["maxConcurrency"])  # 2.0 is an integer to JSON Schema
    allowed = entry.get("alwaysAllow", entry.get("autoApprove"))
    if allowed is not None:
        out["allowed_tools"] = list(allowed)
    return out


def _entry(
    name: str, kind: str, entry: dict[str, Any], where: str, expand: _Expander, workspace: str | None
) -> ServerConfig:
    options = _options(entry, where)
    try:
        if kind == "stdio":
            env = {k: expand(_text(v), f"env.{k}") for k, v in entry.get("env", {}).items()}
            env_file = expand(entry.get("envFile") or "", "envFile")
            if env_file and not expand.literal:
                env = {**read_env_file(Path(workspace or ".") / env_file, f"{where}.envFile"), **env}
            return ServerConfig(
                name=name,
                transport="stdio",
                command=expand(entry["command"], "command"),
                args=[expand(a, f"args[{i}]") for i, a in enumerate(entry.get("args", []))],
                env=env,
                cwd=expand(entry.get("cwd") or "", "cwd") or None,
                **options,
            )
        return ServerConfig(
            name=name,
            transport=kind,
            url=expand(entry["url"], "url"),
            headers={k: expand(_text(v), f"headers.{k}") for k, v in entry.get("headers", {}).items()},
            oauth=_oauth(entry.get("oauth") or {}, expand),
            **options,
        )
    except ConfigError as e:
        if str(e).startswith(where):
            raise
        raise ConfigError(f"{where}: {e}") from None


def _text(value: str | float | bool) -> str:
    """An env or header value: a number or a boolean as JSON (``8080``, ``true``)."""
    return value if isinstance(value, str) else json.dumps(value)


def _oauth(value: dict[str, Any], expand: _Expander) -> dict[str, Any]:
    """``"oauth": {"clientId", "clientSecret", "clientMetadataUrl", "scopes", "redirectPort",
    "grant", "privateKey", "privateKeyFile", "signingAlg"}``
    (snake_case and Claude Code's ``callbackPort`` accepted too) as ServerConfig.oauth;
    ${VAR} works in each string. Other keys were warned about and are left out."""
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = OAUTH_KEYS.get(key) or (key if key in OAUTH_KEYS.values() else None)
        if name == "redirect_port":
            out[name] = int(item)
        elif name is not None:
            out[name] = expand(item, f"oauth.{key}")
    return out


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")
ENV_FILE_LIMIT = 1 << 20  # a dotenv file is a few lines: a bigger one is not one


def read_env_file(path: Path, where: str) -> dict[str, str]:
    """A dotenv file (VS Code's ``envFile``): ``KEY=VALUE`` lines, ``#`` comments, an
    optional ``export``, values optionally quoted, at most ENV_FILE_LIMIT bytes. No expansion
    inside it."""
    try:
        text = read_regular(path, f"{where}: {path}", "point envFile at a file of KEY=VALUE lines",
                            ENV_FILE_LIMIT).decode("utf-8")  # fmt: skip
    except FileNotFoundError:
        raise ConfigError(f"{where}: {path}: no such file") from None
    except OSError as e:
        raise ConfigError(f"{where}: {path}: cannot read it ({e.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{where}: {path}: not UTF-8 text") from None
    out: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, eq, value = line.removeprefix("export ").partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not _ENV_NAME.match(key):
            # The line is not shown: it may hold a secret.
            raise ConfigError(f"{where}: {path} line {number}: expected KEY=VALUE")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        out[key] = value
    return out


class _Expander:
    def __init__(self, environ: Mapping[str, str], workspace: str | None, where: str, literal: bool = False) -> None:
        self.environ = environ
        self.workspace = workspace
        self.where = where
        self.literal = literal  # references stay as written

    def __call__(self, value: str, field_name: str) -> str:
        if self.literal:
            return value
        return REFERENCE.sub(lambda m: self._one(m.group(1), field_name), value)

    def _one(self, expr: str, field_name: str) -> str:
        where = f"{self.where}.{field_name}"
        if expr == "workspaceFolder" and self.workspace is not None:
            return self.workspace
        if expr == "userHome":  # Cursor's
            return str(Path.home())
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


__all__ = [
    "ENV_FILE_LIMIT",
    "PYTHON_NAMES",
    "REFERENCE",
    "TRANSPORTS",
    "ServerConfig",
    "check_server_name",
    "load_config",
    "parse_config",
    "read_env_file",
    "read_json",
    "resolve_command",
    "servers_key",
    "strip_jsonc",
    "workspace_of",
]
