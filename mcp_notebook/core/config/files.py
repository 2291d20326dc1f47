"""The user config folder; config files read (only a regular file, never waited on: a FIFO
or a device is refused; JSON with comments) and JSON files rewritten in place: atomically,
keeping their other keys, written through a symbolic link rather than over it."""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from .jsonc import strip_jsonc

__all__ = [
    "CONFIG_DIR_ENV",
    "Written",
    "parse_json",
    "read_regular",
    "update_file",
    "user_config_dir",
    "write_atomic",
    "written_path",
]

CONFIG_DIR_ENV = "MCP_NOTEBOOK_CONFIG_DIR"


def user_config_dir() -> Path:
    """The folder of the user-level files (``MCP_NOTEBOOK_CONFIG_DIR`` overrides it)."""
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


# Opened without waiting: a FIFO (or a device) named as a file would block its reader until
# someone writes to it; refused once open, by what it is.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)


def read_regular(path: Path, shown: str, hint: str, limit: int | None = None) -> bytes:
    """The bytes of ``path`` if it is a regular file (of at most ``limit`` bytes), else one
    ConfigError line starting with ``shown`` and ending with ``hint``, what to do. OSError
    (FileNotFoundError too) as ``open`` raises it."""
    fd = os.open(path, _OPEN_FLAGS)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"{shown}: not a regular file (a FIFO, a device or a folder); {hint}")
        data = f.read() if limit is None else f.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise ConfigError(f"{shown}: larger than {limit >> 20} MiB; {hint}")
    return data


def parse_json(text: str, path: str | os.PathLike[str]) -> Any:
    """A config file's text (comments and trailing commas allowed) as JSON; ``path`` names it in errors."""
    try:
        return json.loads(strip_jsonc(text))
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}: not valid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise ConfigError(f"{path}: arrays or objects nested too deeply to read; fix the file") from None


def written_path(path: Path, within: Path | None = None) -> Path:
    """The file a write to ``path`` changes: ``path``, or for a symbolic link the file it
    points to (renaming over the link would replace it with a copy). ``within``: a link
    must point inside this folder, else ConfigError (a project's ``.mcp.json`` linking to
    a file of yours elsewhere is not written through)."""
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    if within is not None:
        folder = Path(os.path.realpath(within))
        if not target.is_relative_to(folder):
            raise ConfigError(
                f"{path} is a symbolic link to {target}, outside {folder}; not written through it: "
                "edit the file it points to yourself, or replace the link with a file"
            )
    return target


@dataclass(frozen=True)
class Written:
    """What ``update_file`` did: the file written (a link's target), its bytes as read
    (None: there was no file) and the bytes written, so that what is trusted is what was
    read and written here, not what a later read finds (a ``git pull`` in between)."""

    path: Path
    read: bytes | None
    wrote: bytes

    def __repr__(self) -> str:
        return f"<Written {str(self.path)!r} {len(self.wrote)} bytes>"


def update_file(
    path: Path, change: Callable[[dict[str, Any]], None], *, private: bool = False, within: Path | None = None
) -> Written:
    """Read a JSON file (none: ``{}``), ``change`` it, write it back atomically (indent 2);
    the file written (``written_path``: a link's target), read once. A file with comments
    is refused: rewriting it would lose them."""
    target = written_path(path, within)
    try:
        read: bytes | None = read_regular(target, str(path), "replace it with a file of servers")
    except FileNotFoundError:
        read = None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read it ({e.strerror})") from None
    try:
        text = (read or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    if text.strip() and strip_jsonc(text) != text:
        raise ConfigError(f"{path}: it has comments or trailing commas, which rewriting would lose; edit it by hand")
    data = parse_json(text, target) if text.strip() else {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a JSON object")
    change(data)
    wrote = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        write_atomic(target, wrote, private=private)
    except OSError as e:
        raise ConfigError(f"{path}: cannot write it ({e.strerror}); nothing was changed") from None
    return Written(target, read, wrote)


def write_atomic(path: Path, text: str | bytes, *, private: bool = False) -> None:
    """Write to a temporary file beside ``path``, then rename it over ``path``: a reader
    sees the old file or the new one, never half of one. A private file is mode 0600."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700 if private else 0o777)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:  # as given: the bytes written are the bytes trusted
            f.write(text.encode("utf-8") if isinstance(text, str) else text)
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
