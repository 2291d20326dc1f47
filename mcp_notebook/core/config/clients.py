"""Servers configured in other MCP clients, read from the files those clients document.

``CLIENTS`` names the clients; ``places(client)`` says where each keeps its servers (its
user file on this OS, the project's file in the current folder, and Claude Code's local
scope); ``read_client(client)`` reads them as ``ServerConfig``s through the same checks as
our own files. Each client's dialect is turned into ours first (Windsurf's ``serverUrl``,
Gemini CLI's ``httpUrl`` and ``includeTools``, Codex's TOML tables and
``bearer_token_env_var``); a key nothing here supports is one ``ConfigWarning`` naming it,
and a value the file takes from an environment variable stays that ``${VAR}`` reference
when saved (``refs``).

A project file (the current folder's ``.cursor/mcp.json``, ``.vscode/mcp.json``, ``.mcp.json``,
``.gemini/settings.json``, ``.codex/config.toml``) comes with a cloned repository: it goes
through the same folder trust as our ``./.mcp.json`` (trust.py). Until the person trusted
it as it is, its servers are read as written (no ``${VAR}`` expanded, no envFile read) and
marked ``trusted=False``: listed, never started or saved. User files are the person's own.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ...errors import ConfigError, ConfigWarning
from . import trust
from .files import parse_json, read_regular
from .schema import OAUTH_KEYS
from .servers import ServerConfig, parse_config, read_json

CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "gemini", "codex")

JSON = dict[str, Any]


@dataclass(frozen=True)
class Place:
    """One file a client keeps servers in: ``key`` is where in it (Claude Code's local
    scope: under ``projects`` → ``project`` → ``mcpServers``); ``folder``: for a project
    file, the project folder it is in (its trust is that folder's)."""

    client: str
    scope: str
    path: Path
    key: str = "mcpServers"
    project: str | None = None
    folder: Path | None = None

    @property
    def name(self) -> str:
        """A project file's path in its folder, as trust keeps it."""
        return self.path.relative_to(self.folder).as_posix() if self.folder is not None else str(self.path)

    def __str__(self) -> str:
        return f"{self.path} ({self.client}, {self.scope})"


@dataclass
class Found:
    """A server read from another client's file; ``refs`` are the fields it takes from
    environment variables, as written (for saving them as references). ``trusted``: False
    for a project file the person has not trusted as it is (``config`` as written, nothing
    expanded: list it, never start or save it); ``digest``: that file's, as read."""

    config: ServerConfig
    place: Place
    refs: dict[str, str] = field(default_factory=dict, repr=False)  # as written: may hold a literal too
    trusted: bool = True
    digest: str | None = field(default=None, repr=False)
    entry: JSON = field(default_factory=dict, repr=False)  # as written, in our terms (trust.reach)
    changed: bool = field(default=False, repr=False)  # a project file trusted before, with other content

    def target(self) -> str:
        """The command line or URL as the file has it: a ``${VAR}`` as written (never its
        value), secrets masked (``ServerConfig.describe``)."""
        config = self.config
        command = self.refs.get("command", config.command)
        args = [self.refs.get(f"args.{i}", arg) for i, arg in enumerate(config.args)]
        url = self.refs.get("url", config.url)
        return replace(config, command=command, args=args, url=url).describe()


def check_client(client: str) -> None:
    if client not in CLIENTS:
        raise ConfigError(f"unknown client {client!r}; use one of {', '.join(CLIENTS)}")


def places(
    client: str,
    *,
    home: str | os.PathLike[str] | None = None,
    project: str | os.PathLike[str] | None = None,
    platform: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[Place]:
    """Where ``client`` keeps its servers on ``platform`` (default: this one), user files
    first: the places its documentation names."""
    check_client(client)
    env = os.environ if environ is None else environ
    platform = platform or sys.platform
    home_dir = Path(home) if home is not None else Path.home()
    folder = Path(project) if project is not None else Path.cwd()
    if platform == "win32":
        apps = Path(env.get("APPDATA") or home_dir / "AppData" / "Roaming")
    elif platform == "darwin":
        apps = home_dir / "Library" / "Application Support"
    else:
        apps = Path(env.get("XDG_CONFIG_HOME") or home_dir / ".config")
    if client == "claude-desktop":
        return [Place(client, "user", apps / "Claude" / "claude_desktop_config.json")]
    if client == "claude-code":
        user = Path(env.get("CLAUDE_CONFIG_DIR") or home_dir) / ".claude.json"
        return [
            Place(client, "user", user),
            Place(client, "project", folder / ".mcp.json", folder=folder),
            Place(client, "local", user, project=str(folder.resolve())),
        ]
    if client == "cursor":
        return [
            Place(client, "user", home_dir / ".cursor" / "mcp.json"),
            Place(client, "project", folder / ".cursor" / "mcp.json", folder=folder),
        ]
    if client == "vscode":
        return [
            Place(client, "user", apps / "Code" / "User" / "mcp.json", "servers"),
            Place(client, "project", folder / ".vscode" / "mcp.json", "servers", folder=folder),
        ]
    if client == "windsurf":
        return [Place(client, "user", home_dir / ".codeium" / "windsurf" / "mcp_config.json")]
    if client == "gemini":
        return [
            Place(client, "user", home_dir / ".gemini" / "settings.json"),
            Place(client, "project", folder / ".gemini" / "settings.json", folder=folder),
        ]
    codex_home = Path(env.get("CODEX_HOME") or home_dir / ".codex")
    return [
        Place(client, "user", codex_home / "config.toml", "mcp_servers"),
        Place(client, "project", folder / ".codex" / "config.toml", "mcp_servers", folder=folder),
    ]


def held(place: Place) -> tuple[dict[str, Any] | None, str | None]:
    """The server entries a place holds as the client wrote them (None: no such file), and
    for a project file the digest of its bytes as read (its trust is bound to it; None for a
    user file). A project file is read as trust.read_project_data reads it: a regular file
    of at most 1 MiB, else one ConfigError line."""
    current = None
    if place.folder is not None:
        read = trust.read_project_data(place.path, _parse_toml if place.path.suffix == ".toml" else parse_json)
        if read is None:
            return None, None
        data, current = read
    elif not place.path.is_file():
        return None, None
    else:
        data = _read_toml(place.path) if place.path.suffix == ".toml" else read_json(place.path)
    return _servers(place, data), current


def trusted_digest(place: Place) -> str | None:
    """The digest a project file was trusted with (None: never, or a user file)."""
    return None if place.folder is None else trust.trusted_digest(place.folder, place.name)


def is_trusted(place: Place, current: str | None) -> bool:
    """Whether a place's servers may start: a user file's (the person's own) always; a
    project file's once the person trusted it as it is (``current``: its digest)."""
    return place.folder is None or (current is not None and trusted_digest(place) == current)


def _servers(place: Place, data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ConfigError(f"{place.path}: the top level must be an object")
    if place.project is not None:
        projects = data.get("projects")
        data = projects.get(place.project) if isinstance(projects, dict) else None
        if not isinstance(data, dict):
            return {}
    servers = data.get(place.key, {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{place.path}: {place.key} must be an object of servers")
    return servers


def read_place(place: Place, environ: Mapping[str, str] | None = None, *, trusting: bool = False) -> list[Found]:
    """The servers of one place, in our terms (missing file: none). A project file not
    trusted as it is: read as written, ``trusted=False`` (``trusting``: trust it now)."""
    raw, current = held(place)
    if not raw:
        return []
    if trusting and place.folder is not None and current is not None:
        trust.trust_folder(place.folder, {place.name: current})
        known: str | None = current
    else:
        known = trusted_digest(place)  # the trust store, read once for the file
    trusted = place.folder is None or known == current  # is_trusted, on the store as read here
    key = place.key if place.key in ("servers", "mcp_servers") else "mcpServers"
    source = str(place.path) if place.project is None else f"{place.path}: projects[{place.project}]"
    workspace = str(Path(place.project) if place.project else _workspace(place))
    found: dict[str, Found] = {}
    for theirs, entry in raw.items():
        name = _name(theirs, place)
        try:
            ours = _ours(place.client, entry)
            (config,) = parse_config({key: {name: ours}}, source=source, workspace=workspace, environ=environ,
                                     key=key, expand=trusted).values()  # fmt: skip
        except (ConfigError, TypeError, ValueError, AttributeError, RecursionError) as e:
            # One entry this client reads and we cannot (a VS Code ${input:…}, a wrong type,
            # values nested too deeply): the others still load.
            why = (str(e) if isinstance(e, ConfigError)
                   else f"{source}: {key}.{name}: nested too deeply to read" if isinstance(e, RecursionError)
                   else f"{source}: {key}.{name}: not readable ({e})")  # fmt: skip
            warnings.warn(f"{why}; skipped", ConfigWarning, stacklevel=2)
            continue
        if name in found:
            warnings.warn(
                f"{source}: two servers are named {name!r} here; the later one kept", ConfigWarning, stacklevel=2
            )
        config.source = str(place.path)
        found[name] = Found(config, place, _references(ours), trusted, current, ours, not trusted and known is not None)
    return list(found.values())


def read_client(
    client: str,
    *,
    project: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    home: str | os.PathLike[str] | None = None,
    platform: str | None = None,
    trusting: bool = False,
) -> list[Found]:
    """Every server ``client`` has configured for this user and project (``home`` and
    ``platform``: where its files are, by default this user's on this OS); a name in several
    places takes local over project over user. A project file's servers are ``trusted`` only
    once the person trusted the folder's file as it is (``trusting``: trust it now): until
    then they come last, as written, and never replace a server of the person's own; a
    trusted one that does says so (a ConfigWarning)."""
    out: dict[str, Found] = {}
    held_back: list[Found] = []
    seen: set[tuple[Path, str | None]] = set()
    for place in places(client, project=project, environ=environ, home=home, platform=platform):
        if (place.path.resolve(), place.project) in seen:
            continue  # the project is the home folder: its file is the user's, read once
        seen.add((place.path.resolve(), place.project))
        try:
            read = read_place(place, environ, trusting=trusting)
        except ConfigError as e:  # one file unreadable: the others still load
            warnings.warn(f"{e}; skipped", ConfigWarning, stacklevel=2)
            continue
        for found in read:
            if not found.trusted:
                held_back.append(found)
                continue
            mine = out.pop(found.config.name, None)
            if mine is not None and place.folder is not None:
                warnings.warn(f"{place.path}: project server {found.config.name!r} replaces your "
                              f"{mine.place.scope} server of that name", ConfigWarning, stacklevel=2)  # fmt: skip
            out[found.config.name] = found
    return [*out.values(), *held_back]


def trust_question(found: list[Found]) -> trust.TrustQuestion | None:
    """What to ask the person about ``found``'s servers not trusted (a client has one project
    file, so one question): what each would run, as written, and which of the person's own
    each shares a name with (their own is used meanwhile). None: all trusted."""
    untrusted = [one for one in found if not one.trusted]
    if not untrusted:
        return None
    place, current = untrusted[0].place, untrusted[0].digest
    if place.folder is None or current is None:
        return None  # a user file is always trusted: not reached
    mine = {one.config.name: one.place.scope for one in found if one.trusted}
    return trust.TrustQuestion(
        place.folder,
        place.path,
        current,
        {one.config.name: one.target() for one in untrusted},
        {one.config.name: mine[one.config.name] for one in untrusted if one.config.name in mine},
        changed=untrusted[0].changed,
        reaches={one.config.name: trust.reach(one.entry) for one in untrusted},
    )


def startable(found: list[Found], how: str = trust.TRUST_HINT) -> list[ServerConfig]:
    """The configs of ``found`` that may start; a ConfigWarning says which were left out and
    ``how`` to trust them (the Python API's ``load_from``)."""
    question = trust_question(found)
    if question is not None:
        warnings.warn(question.untrusted_note(how), ConfigWarning, stacklevel=2)
    return [one.config for one in found if one.trusted]


# -- each client's dialect, as ours --------------------------------------------------------


def _name(name: str, place: Place) -> str:
    """A name ours can be (letters, digits, '-', '_', '.'; no '__'), saying so if it changed."""
    ours = re.sub(r"_{2,}", "_", re.sub(r"[^A-Za-z0-9_.-]+", "-", name)).strip("-") or "server"
    if ours != name:
        warnings.warn(f"{place.path}: server {name!r} is named {ours!r} here", ConfigWarning, stacklevel=4)
    return ours


_DOLLAR = re.compile(r"\$(?!\{)([A-Za-z_][A-Za-z0-9_]*)")  # Gemini CLI's $VAR, as ${VAR}


def _ours(client: str, entry: Any) -> Any:
    if not isinstance(entry, dict):
        return entry  # the schema says what is wrong with it
    entry = dict(entry)
    if client == "windsurf" and "serverUrl" in entry:
        entry.setdefault("url", entry.pop("serverUrl"))
    elif client == "gemini":
        entry = {k: _dollars(v) for k, v in entry.items()}
        if "httpUrl" in entry:
            entry["url"] = entry.pop("httpUrl")
            entry.setdefault("type", "http")
        elif "url" in entry:
            entry.setdefault("type", "sse")  # Gemini CLI's url is a legacy SSE endpoint
        for theirs, mine in (("includeTools", "enabledTools"), ("excludeTools", "disabledTools")):
            if theirs in entry:
                entry[mine] = entry.pop(theirs)
    elif client == "codex":
        entry = _codex(entry)
    return entry


def _dollars(value: Any) -> Any:
    if isinstance(value, str):
        return _DOLLAR.sub(r"${\1}", value)
    if isinstance(value, list):
        return [_dollars(v) for v in value]
    if isinstance(value, dict):
        return {k: _dollars(v) for k, v in value.items()}
    return value


def _codex(entry: JSON) -> JSON:
    """A ``[mcp_servers.NAME]`` table as an entry of ours."""
    enabled = entry.pop("enabled", True)
    if enabled is False:
        entry["disabled"] = True
    entry.pop("env_vars", None)  # the variables to pass on: a server gets the whole environment here
    headers = dict(entry.pop("http_headers", None) or {})
    for header, variable in (entry.pop("env_http_headers", None) or {}).items():
        headers[header] = f"${{{variable}}}"
    token = entry.pop("bearer_token_env_var", None)
    if token is not None:
        headers["Authorization"] = f"Bearer ${{{token}}}"
    if headers:
        entry["headers"] = headers
    if "startup_timeout_ms" in entry:
        entry.setdefault("startup_timeout_sec", entry.pop("startup_timeout_ms") / 1000)
    oauth = entry.pop("oauth", None)
    scopes = entry.pop("scopes", None)
    if isinstance(oauth, dict) or scopes is not None:
        ours = {"clientId" if k == "client_id" else k: v for k, v in (oauth or {}).items()}
        if isinstance(scopes, list):
            ours["scopes"] = " ".join(str(s) for s in scopes)
        entry["oauth"] = ours
    return entry


def _references(entry: Any) -> dict[str, str]:
    """The values an entry takes from variables, as written (``${VAR}``; VS Code's and
    Cursor's ``${env:VAR}`` as ``${VAR}``), by config_entry's dotted names: saved so, never
    with the variable's value in their place."""
    refs: dict[str, str] = {}
    if not isinstance(entry, dict):
        return refs
    for part in ("url", "command"):
        value = entry.get(part)
        if isinstance(value, str) and "${" in value:
            refs[part] = value.replace("${env:", "${")
    args = entry.get("args")
    for i, arg in enumerate(args if isinstance(args, list) else ()):
        if isinstance(arg, str) and "${" in arg:
            refs[f"args.{i}"] = arg.replace("${env:", "${")
    for part in ("env", "headers", "oauth"):
        values = entry.get(part)
        if isinstance(values, dict):
            for key, value in values.items():
                if isinstance(value, str) and "${" in value:
                    name = OAUTH_KEYS.get(key, key) if part == "oauth" else key
                    refs[f"{part}.{name}"] = value.replace("${env:", "${")
    return refs


def _workspace(place: Place) -> Path:
    """``${workspaceFolder}``: the project a project file is in (the folder above its
    ``.vscode``, ``.cursor``, ``.gemini`` or ``.codex``), else the current folder."""
    return place.folder if place.folder is not None else Path.cwd()


def _read_toml(path: Path) -> Any:
    try:
        text = read_regular(path, str(path), "give the path of a config.toml file").decode("utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read it ({e.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    return _parse_toml(text, path)


def _parse_toml(text: str, path: Path) -> Any:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10 (mypy checks as 3.10; the test venv is newer, without tomli)
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{path}: arrays or tables nested too deeply to read; fix the file") from None


__all__ = [
    "CLIENTS",
    "Found",
    "Place",
    "check_client",
    "held",
    "is_trusted",
    "places",
    "read_client",
    "read_place",
    "startable",
    "trust_question",
    "trusted_digest",
]
