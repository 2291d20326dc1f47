"""Saved servers, in Claude Code's three scopes.

- ``user``: yours, in every project: ``mcpServers`` of ``mcp.json`` in the user config folder
  (``$MCP_NOTEBOOK_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/mcp-notebook`` or
  ``~/.config/mcp-notebook`` on Linux, ``~/Library/Application Support/mcp-notebook`` on
  macOS, ``%APPDATA%\\mcp-notebook`` on Windows).
- ``project``: shared with the project: ``./.mcp.json`` in the notebook's folder (the
  kernel's working directory), the file Claude Code and others read too. It comes with a
  cloned repository, so its servers are used only once the person trusted the folder
  (trust.py); until then they are listed, unexpanded, and never started.
- ``local``: yours, in this project only: the same user file, under ``projects`` keyed by
  the project folder's absolute path (as Claude Code keeps it in ``~/.claude.json``).

Loading all of them, a name in several scopes takes local over project over user (a project
server replaces a user one only once trusted, and says so). Writing keeps the file's other
entries and keys, and replaces the file atomically (through a link, files.py).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import ConfigError, ConfigWarning
from . import trust
from .entries import Variable, config_entry
from .files import CONFIG_DIR_ENV, parse_json, update_file, user_config_dir, write_atomic
from .servers import ServerConfig, load_config, parse_config, read_json, servers_key

SCOPES = ("user", "project", "local")
PROJECT_FILE = trust.PROJECT_FILE
TRUST_HINT = trust.TRUST_HINT  # what load_scopes' warning says to do about an untrusted folder


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


@dataclass
class Scopes:
    """What the scopes hold. ``servers``: those that may start (user, local, and the
    project's once trusted), each with ``source`` its scope. ``untrusted``: the project's
    while its folder is not trusted: as written (no ``${VAR}`` expanded), never started;
    ``question`` is what to ask the person about them. ``replaced``: trusted project servers
    that replace a user server of the same name."""

    servers: dict[str, ServerConfig] = field(default_factory=dict)
    untrusted: dict[str, ServerConfig] = field(default_factory=dict)
    question: trust.TrustQuestion | None = None
    replaced: list[str] = field(default_factory=list)
    project_path: Path | None = None

    def notes(self, how: str | None) -> list[str]:
        """One line for each thing the person should know: a project server replacing theirs,
        servers left unstarted (``how``: what trusts them; None: not this line)."""
        out = [
            f"{self.project_path}: project server {name!r} replaces your user server of that name"
            for name in self.replaced
        ]
        if self.question is not None and how is not None:
            out.append(self.question.untrusted_note(how))
        return out


def read_project(folder: Path) -> tuple[Any, str] | None:
    """A folder's project file as JSON (an empty file: no servers), with the digest of its
    bytes as read (None: no file; trust.read_project_data)."""
    return trust.read_project_data(folder / PROJECT_FILE, _json_or_nothing)


def _json_or_nothing(text: str, path: Path) -> Any:
    return parse_json(text, path) if text.strip() else {}


def read_scopes(project: str | os.PathLike[str] | None = None, *, trusting: bool = False) -> Scopes:
    """Every saved server: user, then project, then local, a later scope replacing a server
    of the same name; missing files are skipped. The project's are used only if the person
    trusted this folder with this file (``trusting``: trust the folder as it is now, every
    project file in it, remembered)."""
    folder = project_folder(project)
    workspace = str(folder)
    path = user_file()
    data = read_json(path, missing_ok=True)
    # The user file is Claude Code's format (configschema.CLAUDE_CODE) plus "projects":
    # only this project's entry is read, itself in that format.
    found = {"user": parse_config(data, source=str(path), workspace=workspace, key="mcpServers")}
    local = _project_entry(data, folder)
    found["local"] = _parse(local, "mcpServers", f"{path}: projects[{folder}]", workspace) if local else {}
    out = Scopes(project_path=folder / PROJECT_FILE)
    found["project"] = {}
    project_file = read_project(folder)
    if trusting:
        _trust_as_is(folder, project_file)
    if project_file is not None and project_file[0]:
        shared, current = project_file
        source = str(folder / PROJECT_FILE)
        known = None if trusting else trust.trusted_digest(folder)  # the trust store, read once
        if trusting or known == current:
            found["project"] = parse_config(shared, source=source, workspace=workspace)
            out.replaced = [n for n in found["project"] if n in found["user"] and n not in found["local"]]
        else:
            out.untrusted = parse_config(shared, source=source, workspace=workspace, expand=False)
            for config in out.untrusted.values():
                config.source = "project"
            if out.untrusted:
                entries = shared[servers_key(shared, source)]
                out.question = trust.TrustQuestion(
                    folder,
                    folder / PROJECT_FILE,
                    current,
                    {name: config.describe() for name, config in out.untrusted.items()},
                    {n: "user" for n in out.untrusted if n in found["user"] and n not in found["local"]},
                    changed=known is not None,
                    reaches={name: trust.reach(entries[name]) for name in out.untrusted},
                )
    for scope in SCOPES:
        for name, config in found[scope].items():
            config.source = scope
            out.servers.pop(name, None)  # the winner takes its own scope's place in the order
            out.servers[name] = config
    return out


def load_scopes(project: str | os.PathLike[str] | None = None, *, trusting: bool = False) -> dict[str, ServerConfig]:
    """The servers of ``read_scopes`` that may start; a ConfigWarning for each note (a
    project server replacing a user one, project servers not trusted, so not started)."""
    found = read_scopes(project, trusting=trusting)
    for note in found.notes(TRUST_HINT):
        warnings.warn(note, ConfigWarning, stacklevel=2)
    return found.servers


def trust_project(project: str | os.PathLike[str] | None = None) -> Path | None:
    """Trust a folder as it is now: every project file in it (``./.mcp.json``, and other
    clients' such as ``.cursor/mcp.json``; trust.PROJECT_FILES). Its ``.mcp.json`` if it has
    one, else the first project file trusted; None if the folder has none."""
    folder = project_folder(project)
    trusted = _trust_as_is(folder, read_project(folder))
    return folder / trusted[0] if trusted else None


def _trust_as_is(folder: Path, project_file: tuple[Any, str] | None) -> list[str]:
    """Trust every project file of ``folder`` as it is; ``.mcp.json`` as read already
    (``project_file``), so exactly what is used is what is trusted. The files trusted."""
    files = trust.folder_digests(folder, {PROJECT_FILE: project_file[1]} if project_file is not None else None)
    if files:
        trust.trust_folder(folder, files)
    return sorted(files, key=trust.PROJECT_FILES.index)


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
    to them here (set them before loading it elsewhere). ``written``: the file changed, when
    ``path`` is a symbolic link to it. ``trusted``: False for a project file whose folder is
    not trusted (it was not before: what else it holds was never trusted)."""

    name: str
    scope: str
    path: Path
    variables: list[Variable] = field(default_factory=list)
    written: Path | None = None
    trusted: bool = True


def save_server(
    config: ServerConfig,
    scope: str = "project",
    *,
    project: str | os.PathLike[str] | None = None,
    refs: dict[str, str] | None = None,
) -> Saved:
    """Write ``config`` into a scope's file (replacing an entry of that name). Secrets are
    written as ``${VAR}`` references, never values (see entries.config_entry). A project
    file that is a link is written through only to a file inside the project folder."""
    check_scope(scope)
    entry, variables = config_entry(config, refs)
    path = scope_file(scope, project)
    folder = project_folder(project)

    def change(data: dict[str, Any]) -> None:
        _servers_in(data, scope, folder, path)[config.name] = entry

    written, trusted = _update_scope(path, change, scope, folder)
    return Saved(config.name, scope, path, variables, written if written != path else None, trusted)


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
    _update_scope(path, change, scope, folder)
    return path


def _update_scope(path: Path, change: Any, scope: str | None, folder: Path) -> tuple[Path, bool]:
    """``update_file`` for a scope's file: the file written, and whether it is trusted. The
    project's: through a link only to a file in the project; and what the person writes
    there themselves keeps the folder as trusted as it was (a file this creates holds only
    their own servers: trusted). Trust is decided on the bytes the write read and recorded
    for the bytes it wrote: a change landing before or after it (a ``git pull``) is not
    trusted with it."""
    if scope != "project":
        return update_file(path, change, private=scope in ("user", "local")).path, True
    if path.exists():
        read_project(folder)  # a FIFO or device is refused here, before a write would read it
    done = update_file(path, change, within=folder)
    keep = done.read is None or trust.is_trusted(folder, trust.digest(done.read))
    if keep:
        trust.trust_folder(folder, {PROJECT_FILE: trust.digest(done.wrote)})
    return done.path, keep


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


__all__ = [
    "CONFIG_DIR_ENV",
    "PROJECT_FILE",
    "SCOPES",
    "TRUST_HINT",
    "Saved",
    "Scopes",
    "check_scope",
    "load_scopes",
    "load_servers",
    "looked_in",
    "project_folder",
    "read_project",
    "read_scopes",
    "remove_saved",
    "save_server",
    "scope_file",
    "trust_project",
    "update_file",
    "user_config_dir",
    "user_file",
    "write_atomic",
]
