"""Where OAuth tokens and client registrations live: the OS keyring, else a 0600 JSON file,
or memory. ``MCP_NOTEBOOK_TOKEN_STORE=keyring|file|memory`` picks one; by default the
keyring when a working backend answers (probed once), else the file.

Entries are keyed by the server's URL and the authorization server's issuer, so tokens
never follow a server to another URL or issuer. Nothing here is ever printed.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Protocol

JSON = dict[str, Any]
_SERVICE = "mcp-notebook"


class TokenStore(Protocol):
    name: str

    def load(self, key: str) -> JSON | None: ...

    def save(self, key: str, value: JSON) -> None: ...

    def delete(self, key: str) -> None: ...


class MemoryStore:
    name = "memory"

    def __init__(self) -> None:
        self._entries: dict[str, JSON] = {}

    def load(self, key: str) -> JSON | None:
        return self._entries.get(key)

    def save(self, key: str, value: JSON) -> None:
        self._entries[key] = value

    def delete(self, key: str) -> None:
        self._entries.pop(key, None)

    def __repr__(self) -> str:
        return f"<MemoryStore entries={len(self._entries)}>"


class FileStore:
    """One JSON file readable by its owner only (0600, in a 0700 folder)."""

    name = "file"

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path else _default_path()
        self._lock = threading.Lock()

    def _read(self) -> dict[str, JSON]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, JSON]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(data, f)
        os.chmod(tmp, 0o600)  # also when the file existed with looser permissions
        os.replace(tmp, self.path)

    def load(self, key: str) -> JSON | None:
        with self._lock:
            return self._read().get(key)

    def save(self, key: str, value: JSON) -> None:
        with self._lock:
            data = self._read()
            data[key] = value
            self._write(data)

    def delete(self, key: str) -> None:
        with self._lock:
            data = self._read()
            if data.pop(key, None) is not None:
                self._write(data)

    def __repr__(self) -> str:
        return f"<FileStore {str(self.path)!r}>"


class KeyringStore:
    """The OS keyring (macOS Keychain, Windows Credential Locker, Secret Service...)."""

    name = "keyring"

    def load(self, key: str) -> JSON | None:
        import keyring

        raw = keyring.get_password(_SERVICE, key)
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def save(self, key: str, value: JSON) -> None:
        import keyring

        keyring.set_password(_SERVICE, key, json.dumps(value))

    def delete(self, key: str) -> None:
        import keyring
        from keyring.errors import PasswordDeleteError

        try:
            keyring.delete_password(_SERVICE, key)
        except PasswordDeleteError:
            pass

    def __repr__(self) -> str:
        return "<KeyringStore>"


def _default_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mcp-notebook" / "tokens.json"


def _keyring_works() -> bool:
    """A real backend that stores and returns a value (containers often have none)."""
    try:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
        if isinstance(backend, fail.Keyring) or "null" in type(backend).__module__.lower():
            return False
        probe = "probe"
        keyring.set_password(_SERVICE, "__probe__", probe)
        ok = keyring.get_password(_SERVICE, "__probe__") == probe
        keyring.delete_password(_SERVICE, "__probe__")
        return ok
    except Exception:  # any backend failure means: do not use it
        return False


_default: TokenStore | None = None
_default_lock = threading.Lock()


def default_store() -> TokenStore:
    global _default
    with _default_lock:
        if _default is None:
            choice = os.environ.get("MCP_NOTEBOOK_TOKEN_STORE", "").strip().lower()
            if choice == "memory":
                _default = MemoryStore()
            elif choice == "file":
                _default = FileStore()
            elif choice == "keyring" or (not choice and _keyring_works()):
                _default = KeyringStore()
            else:
                _default = FileStore()
        return _default


__all__ = ["FileStore", "KeyringStore", "MemoryStore", "TokenStore", "default_store"]
