"""Saved servers, in Claude Code's three scopes.

- ``user``: yours, in every project: ``mcpServers`` of ``mcp.json`` in the user config folder
  (``$MCP_NOTEBOOK_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/mcp-notebook`` or
  ``~/.config/mcp-notebook`` on Linux, ``~/Library/Application Support/mcp-notebook`` on
  macOS, ``%APPDATA%\\mcp-notebook`` on Windows).
- ``project``: shared with the project: ``./.mcp.json`` in the notebook's folder (the
  kernel's working directory), the file Claude Code and others read too.
- ``local``: yours, in this project only: the same user file, under ``projects`` keyed by
  the project folder's absolute path (as Claude Code keeps it in ``~/.claude.json``).

Loading all of them, a name in several scopes takes local over project over user. Writing
keeps the file's other entries and keys, and replaces the file atomically.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from .entries import config_entry
from .servers import ServerConfig, load_config, parse_config, read_json, servers_key, strip_jsonc

SCOPES = ("user", "project", "local")
CONFIG_DIR_ENV = "MCP_NOTEBOOK_CONFIG_DIR"
PROJECT_FILE = ".mcp.json"


def user_config_dir() -> Path:
    """The folder of the user-level file (``MCP_NOTEBOOK_CONFIG_DIR`` overrides it)."""
    override = os.environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override).expanduser()
    if sys.platform == "win32":
        base = os.environ.get("APPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Roaming")
    elif sys.platform == "darwin":
        base = os.path.join(os.path.expanduser("~"), "Library", "Application Support")
    else:
        base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mcp-notebook"


def user_file() -> Path:
    return user_config_dir() / "mcp.json"


def project_folder(project: str | os.PathLike[str] | None = None) -> Path:
    return Path(project if project is not None else os.getcwd()).resolve()


def scope_file(scope: str, project: str | os.PathLike[str] | None = None) -> Path:
    """The file a scope is kept in."""
    check_scope(scope)
    return project_folder(project) / PROJECT_FILE if scope == "project" else user_file()


def check_scope(scope: str) -> None:
    if scope not in SCOPES:
        raise ConfigError(f"unknown scope {scope!r}; use user, project or local")


def looked_in(project: str | os.PathLike[str] | None = None) -> str:
    """Where ``load_scopes`` reads, for a message that found nothing."""
    return f"{user_file()} (user and local scopes) and {project_folder(project) / PROJECT_FILE} (project scope)"


def load_scopes(project: str | os.PathLike[str] | None = None) -> dict[str, ServerConfig]:
    """Every saved server: user, then project, then local, a later scope replacing a server of
    the same name. Missing files are skipped. Each config's ``source`` is its scope."""
    folder = project_folder(project)
    workspace = str(folder)
    path = user_file()
    data = read_json(path, missing_ok=True)
    # The user file is Claude Code's format (configschema.CLAUDE_CODE) plus "projects":
    # only this project's entry is read, itself in that format.
    found = {"user": parse_config(data, source=str(path), workspace=workspace, key="mcpServers")}
    project_path = folder / PROJECT_FILE
    shared = read_json(project_path, missing_ok=True)
    found["project"] = parse_config(shared, source=str(project_path), workspace=workspace) if shared else {}
    local = _project_entry(data, folder)
    found["local"] = _parse(local, "mcpServers", f"{path}: projects[{folder}]", workspace) if local else {}
    out: dict[str, ServerConfig] = {}
    for scope in SCOPES:
        for name, config in found[scope].items():
            config.source = scope
            out.pop(name, None)  # the winner takes its own scope's place in the order
            out[name] = config
    return out


def load_servers(path: str | os.PathLike[str] | None = None) -> dict[str, ServerConfig]:
    """A config file's servers, or with no path every scope's (``load_scopes``)."""
    return load_config(path) if path is not None else load_scopes()


def _parse(data: Any, key: str, source: str, workspace: str) -> dict[str, ServerConfig]:
    if not isinstance(data, dict) or key not in data:
        return {}
    return parse_config(data, source=source, workspace=workspace, key=key)


def _project_entry(data: dict[str, Any], folder: Path) -> Any:
    projects = data.get("projects")
    return projects.get(str(folder)) if isinstance(projects, dict) else None


@dataclass
class Saved:
    """Where a server was saved, and the variables its secrets refer to that are not set
    to them here (set them before loading it elsewhere)."""

    name: str
    scope: str
    path: Path
    variables: list[str] = field(default_factory=list)


def save_server(
    config: ServerConfig,
    scope: str = "project",
    *,
    project: str | os.PathLike[str] | None = None,
    refs: dict[str, str] | None = None,
) -> Saved:
    """Write ``config`` into a scope's file (replacing an entry of that name). Secrets are
    written as ``${VAR}`` references, never values (see entries.config_entry)."""
    check_scope(scope)
    entry, variables = config_entry(config, refs)
    path = scope_file(scope, project)
    folder = project_folder(project)

    def change(data: dict[str, Any]) -> None:
        _servers_in(data, scope, folder, path)[config.name] = entry

    update_file(path, change, private=scope != "project")
    return Saved(config.name, scope, path, variables)


def remove_saved(name: str, where: str, *, project: str | os.PathLike[str] | None = None) -> Path:
    """Delete server ``name`` from a scope (``user``, ``project``, ``local``) or from a config
    file's path; the file it was removed from."""
    scope = where if where in SCOPES else None
    path = scope_file(where, project) if scope else Path(where)
    folder = project_folder(project)

    def change(data: dict[str, Any]) -> None:
        servers = _servers_in(data, scope, folder, path, create=False)
        if servers is None or name not in servers:
            raise ConfigError(f"{path}: no server {name!r} saved there" + (f" ({scope} scope)" if scope else ""))
        del servers[name]
        if scope == "local" and not servers:
            projects = data["projects"]
            del projects[str(folder)]
            if not projects:
                del data["projects"]

    if not path.exists():
        raise ConfigError(f"{path}: no such file, so no server {name!r} saved there")
    update_file(path, change, private=scope in ("user", "local"))
    return path


def _servers_in(data: dict[str, Any], scope: str | None, folder: Path, path: Path, create: bool = True) -> Any:
    """The object holding the servers of ``scope`` (None: a config file's own) in ``data``."""
    if scope == "local":
        projects = data.setdefault("projects", {}) if create else data.get("projects")
        if not isinstance(projects, dict):
            return _not_an_object(path, "projects", create)
        project = projects.setdefault(str(folder), {}) if create else projects.get(str(folder))
        if not isinstance(project, dict):
            return _not_an_object(path, f"projects[{folder}]", create)
        data = project
    key = "mcpServers"
    if scope in (None, "project") and "mcpServers" not in data and "servers" in data:
        key = servers_key(data, str(path))  # a VS Code file keeps its own key
    servers = data.setdefault(key, {}) if create else data.get(key)
    if not isinstance(servers, dict):
        return _not_an_object(path, key, create)
    return servers


def _not_an_object(path: Path, key: str, create: bool) -> None:
    if create:
        raise ConfigError(f"{path}: {key} must be an object; fix the file first")
    return None


def update_file(path: Path, change: Callable[[dict[str, Any]], None], *, private: bool = False) -> None:
    """Read a JSON file (none: ``{}``), ``change`` it, write it back atomically (indent 2).
    A file with comments is refused: rewriting it would lose them."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except OSError as e:
        raise ConfigError(f"{path}: cannot read it ({e.strerror})") from None
    if text.strip() and strip_jsonc(text) != text:
        raise ConfigError(f"{path}: it has comments or trailing commas, which rewriting would lose; edit it by hand")
    data = read_json(path) if text.strip() else {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a JSON object")
    change(data)
    try:
        write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", private=private)
    except OSError as e:
        raise ConfigError(f"{path}: cannot write it ({e.strerror}); nothing was changed") from None


def write_atomic(path: Path, text: str, *, private: bool = False) -> None:
    """Write to a temporary file beside ``path``, then rename it over ``path``: a reader
    sees the old file or the new one, never half of one. A private file is mode 0600."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700 if private else 0o777)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            mode = path.stat().st_mode & 0o777  # keep the file's own mode
        except FileNotFoundError:
            mode = 0o600 if private else 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


__all__ = [
    "CONFIG_DIR_ENV",
    "PROJECT_FILE",
    "SCOPES",
    "Saved",
    "check_scope",
    "load_scopes",
    "load_servers",
    "looked_in",
    "project_folder",
    "remove_saved",
    "save_server",
    "scope_file",
    "update_file",
    "user_config_dir",
    "user_file",
    "write_atomic",
]
