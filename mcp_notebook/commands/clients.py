"""``%mcp load --from CLIENT``: servers configured in another MCP client (see
core/config/clients.py), added, listed (``--dry-run``) or copied into our scopes (``--save``);
``%mcp load --from`` alone lists those clients' files."""

from __future__ import annotations

from typing import Any

from ..core.config.clients import CLIENTS, Found, check_client, entries, places, read_client
from ..core.config.scopes import save_server
from ..errors import ArgumentError, ConfigError
from .base import Context, report, report_saved

__all__ = ["load_from"]


def load_from(ctx: Context, client: str, dry_run: bool, save: str | None) -> Any:
    """What ``%mcp load --from [CLIENT]`` does (its help is load's)."""
    if not client:
        return _files()
    try:
        check_client(client)
    except ConfigError as e:
        raise ArgumentError(str(e)) from None
    found = read_client(client)
    if not found:
        where = ", ".join(str(p.path) for p in places(client))
        ctx.out(f"{client}: no servers; looked in {where}")
        return None
    if save:
        for one in found:
            _save(ctx, one, save)
    if dry_run:
        return _dry_run(found)
    for server in ctx.client.add_configs(one.config for one in found):
        report(ctx, server)
    return None


def _save(ctx: Context, found: Found, scope: str) -> None:
    report_saved(ctx, save_server(found.config, scope, refs=found.refs))


def _dry_run(found: list[Found]) -> Any:
    from .tables import found_frame

    rows = [
        {
            "name": one.config.name,
            "transport": one.config.transport,
            "target": one.config.describe(),
            "client": one.place.client,
            "scope": one.place.scope,
            "file": str(one.place.path),
            "disabled": one.config.disabled,
        }
        for one in found
    ]
    return found_frame(rows)


def _files() -> Any:
    from .tables import places_frame

    rows = []
    for client in CLIENTS:
        for place in places(client):
            row: dict[str, Any] = {"client": client, "scope": place.scope, "file": str(place.path)}
            try:
                held = entries(place)
            except ConfigError as e:
                row.update(exists=True, servers=None, error=str(e))
            else:
                row.update(exists=held is not None, servers=None if held is None else len(held), error=None)
            rows.append(row)
    return places_frame(rows)
