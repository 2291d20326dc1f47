"""Which folders' project config the person trusts.

A folder's ``.mcp.json`` arrives with a cloned repository, and so do other clients' project
files in it (``.cursor/mcp.json``, ``.vscode/mcp.json``, ``.gemini/settings.json``,
``.codex/config.toml``: ``PROJECT_FILES``): their servers are commands to run on this
machine, and ``${VAR}`` in them would hand them the person's secrets. So, as Claude Code asks
before it uses a project's servers, they are used only once the person trusted that folder:
a card in a notebook, a prompt on a terminal, ``--trust`` (or ``client.trust_folder()``) for
scripts.

Trust is kept in ``trusted-folders.json`` in the user config folder (mode 0600), keyed by
the folder's real path, and bound to each project file by the SHA-256 of its bytes as read
(``files``: its path in the folder → digest). A card or prompt trusts the one file whose
servers it showed; ``--trust`` and ``trust_folder()`` trust every project file the folder
has now. A file changed since (a ``git pull``), or added since, is asked about again.
Saving a server to the project scope ourselves keeps a trusted ``.mcp.json`` trusted (the
new digest is recorded), and trusts a file it creates, which holds only what the person
saved. Project files are read only as regular files of at most 1 MiB (``read_project_file``):
a committed link to ``/dev/zero`` or a FIFO is refused in one line, never waited on.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ...errors import ConfigError
from ..safety.text import printable, shown_name
from .files import parse_json, read_regular, update_file, user_config_dir
from .servers import REFERENCE

__all__ = [
    "PROJECT_FILE",
    "PROJECT_FILES",
    "PROJECT_FILE_LIMIT",
    "TRUST_FILE",
    "TRUST_HINT",
    "TrustAnswer",
    "TrustQuestion",
    "digest",
    "folder_digests",
    "folder_key",
    "is_trusted",
    "reach",
    "read_project_data",
    "read_project_file",
    "trust_file",
    "trust_folder",
    "trusted_digest",
]

TRUST_FILE = "trusted-folders.json"
PROJECT_FILE = ".mcp.json"
# Every project file a client we read keeps servers in (clients.places' project places).
PROJECT_FILES = (PROJECT_FILE, ".cursor/mcp.json", ".vscode/mcp.json", ".gemini/settings.json", ".codex/config.toml")
PROJECT_FILE_LIMIT = 1 << 20  # a config file of servers is a few KiB: a bigger one is not one
# What the Python API's warning says to do about an untrusted folder (the fronts say their own).
TRUST_HINT = "trust the folder with client.trust_folder() or client.load(trust=True) (see docs/security.md)"


# Environment variables that change how a program runs (what it loads first, where it finds
# code): set by a project's server entry, they are as strong as its command.
RUNS_DIFFERENTLY = frozenset({
    "BASH_ENV", "DOTNET_STARTUP_HOOKS", "ELECTRON_RUN_AS_NODE", "ENV", "GIT_EXEC_PATH", "GIT_SSH_COMMAND",
    "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "NODE_OPTIONS", "NODE_PATH", "PATH", "PERL5LIB", "PERL5OPT",
    "PERLLIB", "PYTHONHOME", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONWARNINGS", "RUBYLIB",
    "RUBYOPT", "ZDOTDIR", "_JAVA_OPTIONS",
})  # fmt: skip
_RUNS_DIFFERENTLY_PREFIXES = ("DYLD_", "LD_")
_NOT_ENVIRONMENT = ("workspaceFolder", "userHome")  # ${…} that name no variable of the person's


def trust_file() -> Path:
    return user_config_dir() / TRUST_FILE


def folder_key(folder: str | os.PathLike[str]) -> str:
    """The folder's real path (links resolved): a link to a folder is that folder."""
    return os.path.realpath(folder)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_project_file(path: Path) -> tuple[bytes, str] | None:
    """A project file's bytes and their digest (None: no such file). Only a regular file of
    at most PROJECT_FILE_LIMIT bytes: anything else is one ConfigError line."""
    hint = "a project's config file must be a regular file of servers; replace it"
    try:
        data = read_regular(path, str(path), hint, PROJECT_FILE_LIMIT)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read it ({e.strerror})") from None
    return data, digest(data)


def read_project_data(path: Path, parse: Callable[[str, Path], Any] = parse_json) -> tuple[Any, str] | None:
    """A project file read as ``read_project_file`` reads it, as UTF-8 text ``parse``d (JSON
    with comments by default), and the digest of the bytes parsed (its trust is bound to
    them); None: no such file."""
    read = read_project_file(path)
    if read is None:
        return None
    data, current = read
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    return parse(text, path), current


def folder_digests(folder: str | os.PathLike[str], known: Mapping[str, str] | None = None) -> dict[str, str]:
    """The digest of each project file ``folder`` has now and that can be read (by its path
    in the folder): what trusting the folder as it is trusts. ``known``: digests of files
    read already (of the bytes used), taken as they are, not read again."""
    out = dict(known or {})
    for name in PROJECT_FILES:
        if name in out:
            continue
        try:
            read = read_project_file(Path(folder) / name)
        except ConfigError:
            continue  # unreadable: never used, so nothing to trust (reading it says why)
        if read is not None:
            out[name] = read[1]
    return out


def _read() -> dict[str, Any]:
    path = trust_file()
    try:
        data = json.loads(read_regular(path, str(path), "delete it to trust folders afresh", PROJECT_FILE_LIMIT))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        # Unreadable or damaged: nothing is trusted (the safe reading); saying so once.
        raise ConfigError(f"{path}: cannot read it; delete it to trust folders afresh") from None
    folders = data.get("folders") if isinstance(data, dict) else None
    return folders if isinstance(folders, dict) else {}


def _files(entry: Any) -> dict[str, Any]:
    if not isinstance(entry, dict):
        return {}
    files = entry.get("files")
    return files if isinstance(files, dict) else {}


def trusted_digest(folder: str | os.PathLike[str], name: str = PROJECT_FILE) -> str | None:
    """The digest of the folder's project file ``name`` as the person trusted it (None:
    never trusted)."""
    value = _files(_read().get(folder_key(folder))).get(name)
    return value if isinstance(value, str) else None


def is_trusted(folder: str | os.PathLike[str], current: str, name: str = PROJECT_FILE) -> bool:
    """Whether the person trusted ``folder``'s project file ``name`` as it is (``current``:
    its digest)."""
    return trusted_digest(folder, name) == current


def trust_folder(folder: str | os.PathLike[str], files: Mapping[str, str]) -> Path:
    """Remember that the person trusts ``folder``'s project files as they are (``files``:
    path in the folder → digest; others trusted before stay so); the file trust is kept in."""
    key = folder_key(folder)

    def change(data: dict[str, Any]) -> None:
        folders = data.get("folders")
        if not isinstance(folders, dict):
            folders = data["folders"] = {}
        kept = _files(folders.get(key))
        folders[key] = {
            "files": {**kept, **files},
            "trusted_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }

    path = trust_file()
    update_file(path, change, private=True)
    return path


def _variables(value: Any) -> list[str]:
    """The environment variables a value as written takes (``${VAR}``, ``${env:VAR}``,
    ``${VAR:-default}``), by name."""
    names = []
    for expr in REFERENCE.findall(value) if isinstance(value, str) else ():
        name = expr.removeprefix("env:").partition(":-")[0]
        if name and name not in _NOT_ENVIRONMENT and not name.startswith("input:"):
            names.append(name)
    return names


def reach(entry: Mapping[str, Any]) -> list[str]:
    """What a server entry (as written, in our terms) would get beyond its command or URL,
    one line each: the ``${VAR}`` it takes from the person's environment and where each
    goes, the environment variables it sets (those that change how a program runs marked),
    its envFile, cwd and the tools it lets run without asking. Only what the entry says,
    never a value of the person's environment; not yet escaped."""
    places: dict[str, list[str]] = {}

    def take(value: Any, where: str) -> None:
        for name in _variables(value):
            if where not in places.setdefault(name, []):
                places[name].append(where)

    take(entry.get("command"), "command")
    for arg in entry.get("args") or ():
        take(arg, "args")
    take(entry.get("url"), "url")
    env, headers, oauth = (_object(entry.get(key)) for key in ("env", "headers", "oauth"))
    for parts, what in ((env, "env"), (headers, "header"), (oauth, "oauth")):
        for key, value in parts.items():
            take(value, f"{what} {key}")
    take(entry.get("envFile"), "envFile")
    take(entry.get("cwd"), "cwd")
    out = [f"gets ${{{_shown(name)}}} in {' and '.join(map(_shown, where))}" for name, where in places.items()]
    if env:
        out.append(f"sets env {', '.join(map(_shown, sorted(env)))}")
        strong = sorted(k for k in env if _runs_differently(k))
        if strong:
            verb = "changes" if len(strong) == 1 else "change"
            out.append(f"⚠ {', '.join(map(_shown, strong))} {verb} how the program runs")
    if entry.get("envFile"):
        out.append(f"envFile {_shown(entry['envFile'])}: more variables, from that file")
    if entry.get("cwd"):
        out.append(f"cwd {_shown(entry['cwd'])}")
    allowed = entry.get("alwaysAllow", entry.get("autoApprove"))
    if allowed:
        tools = ", ".join(_shown(tool) for tool in allowed)
        out.append(f"alwaysAllow {tools}: these tools run without asking, though destructive")
    return out


def _object(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _runs_differently(key: str) -> bool:
    key = key.upper()  # Windows' environment ignores case
    return key in RUNS_DIFFERENTLY or key.startswith(_RUNS_DIFFERENTLY_PREFIXES)


def _shown(value: Any) -> str:
    """A value of the file, in one line that cannot pass for another (a newline in it shown)."""
    return shown_name(str(value))


class TrustAnswer(Protocol):
    """What answering a trust question does (trusting the file, starting its servers), to
    its end: ``run()`` blocks for it (a prompt), ``arun()`` awaits it (a card's click, which
    must not hold the kernel while a server starts or asks for a login); the lines to show."""

    def run(self) -> list[str]: ...

    def arun(self) -> Awaitable[list[str]]: ...


@dataclass
class TrustQuestion:
    """What a person is asked about a folder: one project file, that file's digest as read,
    the servers it holds (``name``: what it would run, unexpanded) and the names it shares
    with the person's own saved servers (``shadows``: name → scope)."""

    folder: Path
    path: Path
    digest: str
    servers: dict[str, str] = field(default_factory=dict)
    shadows: dict[str, str] = field(default_factory=dict)
    changed: bool = False  # trusted before, with other content
    # What each server would get besides its command or URL (``reach``): secrets, settings.
    reaches: dict[str, list[str]] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"<TrustQuestion {str(self.path)!r} servers={list(self.servers)!r}>"

    @property
    def name(self) -> str:
        """The file's path in the folder, as trust keeps it."""
        return self.path.relative_to(self.folder).as_posix()

    def lines(self) -> list[str]:
        """The question, one line each, safe for a terminal (what the file says is escaped)."""
        why = "changed since you trusted it" if self.changed else "not trusted yet"
        out = [
            f"{self.path}: this folder's project servers are {why}. Trusting it runs these commands "
            "on this machine, with ${VAR} taken from your environment:"
        ]
        return [printable(line) for line in out + [f"  {line}" for line in self.server_lines()]]

    def server_lines(self) -> list[str]:
        """Each server: what it runs, what it replaces, then indented what it would get (its
        ``reaches``). As the file has them: escape them for where they are shown."""
        out = []
        for name, target in self.servers.items():
            note = f"  (replaces your {self.shadows[name]} server {name!r})" if name in self.shadows else ""
            out.append(f"{name}: {target}{note}".replace("\n", "\\n"))  # one line each, whatever it holds
            out += [f"    {line}" for line in self.reaches.get(name, ())]
        return out

    def untrusted_note(self, how: str) -> str:
        """One line for where the folder stays untrusted: what is not started, what is used
        instead, and ``how`` to trust it."""
        names = ", ".join(self.servers)
        kept = [f"{name!r} is your {scope} server" for name, scope in self.shadows.items()]
        instead = f"; {', '.join(kept)}, used instead" if kept else ""
        why = "changed since you trusted it" if self.changed else "not trusted"
        return printable(f"{self.path}: {why}, so not started: {names}{instead}; {how}")
