"""A server's listings as a snapshot: a JSON file (``%mcp snapshot``) to compare with later
(``%mcp diff``), such as a server's next version against this one.

A snapshot holds what the listings said: tools, resources, resource templates and prompts,
each entry as the server sent it (schemas included), with the server's name, its
``serverInfo``, the protocol version and when it was taken.
"""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Any

from ...errors import ArgumentError
from .compare import KINDS

FORMAT = "mcp-notebook listings snapshot 1"
JSON = dict[str, Any]


def snapshot_of(server: str, info: JSON, protocol: str | None, listings: dict[str, list[JSON]]) -> JSON:
    """A snapshot of ``listings`` (by kind: tools, resources, resourceTemplates, prompts)."""
    taken = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return {"format": FORMAT, "server": server, "serverInfo": info, "protocolVersion": protocol, "taken": taken,
            **{kind: list(listings.get(kind, [])) for kind in KINDS}}  # fmt: skip


def write_snapshot(path: str | os.PathLike[str], data: JSON) -> Path:
    target = Path(path)
    try:
        target.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    except OSError as e:
        raise ArgumentError(f"{target}: cannot write the snapshot ({e.strerror})") from None
    return target


def read_snapshot(path: str | os.PathLike[str]) -> JSON:
    """A snapshot written by ``write_snapshot``; ArgumentError, in one line, for anything else."""
    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ArgumentError(f"{source}: no such snapshot; write one with %mcp snapshot SERVER {source}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ArgumentError(f"{source}: not a snapshot ({type(e).__name__})") from None
    except RecursionError:  # no listing a server can send is this deep: ours are never
        raise ArgumentError(f"{source}: not a snapshot (nested too deep to read)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArgumentError(f'{source}: not an mcp-notebook snapshot (no "format": "{FORMAT}")')
    return data


__all__ = ["FORMAT", "read_snapshot", "snapshot_of", "write_snapshot"]
