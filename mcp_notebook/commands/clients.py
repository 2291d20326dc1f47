"""``%mcp load --from CLIENT``: servers configured in another MCP client (see
core/config/clients.py), added, listed (``--dry-run``) or copied into our scopes (``--save``);
``%mcp load --from`` alone lists those clients' files.

A project file of another client in this folder (``.cursor/mcp.json``, ``.vscode/mcp.json`` …)
goes through the same folder trust as ``./.mcp.json`` (commands/trusting.py): until the
person trusts it, its servers are listed as untrusted (as written, nothing expanded), never
started, never saved; they are asked about as ``%mcp load`` asks (a card, a prompt)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.config.clients import CLIENTS, Found, check_client, held, is_trusted, places, read_client, trust_question
from ..core.config.scopes import save_server
from ..errors import ArgumentError, ConfigError
from .base import Context, Deferred, report, report_saved
from .trusting import ask_about, forget_untrusted, keep_untrusted, starting

__all__ = ["load_from", "trust_how"]


def trust_how(ctx: Context, client: str) -> str:
    """How to trust this folder where nobody was asked, on this front."""
    if ctx.source is not None:  # the command line
        return "run with --trust to trust this folder (or answer the prompt on a terminal)"
    return f"%mcp load --from {client} --trust trusts it as it is now and starts them"


def load_from(ctx: Context, client: str, dry_run: bool, save: str | None, trust: bool = False) -> Any:
    """What ``%mcp load --from [CLIENT]`` does (its help is load's); ``trust``: trust this
    folder's project file of that client as it is now (``%mcp load --from CLIENT --trust``)."""
    if not client:
        return _files()
    try:
        check_client(client)
    except ConfigError as e:
        raise ArgumentError(str(e)) from None
    found = read_client(client, trusting=trust)
    if not found:
        where = ", ".join(str(p.path) for p in places(client))
        ctx.out(f"{client}: no servers; looked in {where}")
        return None
    question = trust_question(found)
    usable = [one for one in found if one.trusted]
    if ctx.source is None and not dry_run and not save:  # %mcp list shows those left unstarted
        for place in {one.place.path for one in found if one.place.folder is not None}:
            left = {one.config.name: one.config for one in found if one.place.path == place and not one.trusted}
            keep_untrusted(ctx, place, left, trust_how(ctx, client))
    if save:
        for one in usable:
            _save(ctx, one, save)
        if question is not None:  # saved, they would start without being trusted
            names = ", ".join(question.servers)
            ctx.out(f"⚠ {question.path}: not trusted, so not saved: {names}; {trust_how(ctx, client)}")
    if dry_run:
        return _dry_run(found)
    for server in ctx.client.add_configs(one.config for one in usable):
        report(ctx, server)
    if question is not None and not save:
        path = question.path
        ask_about(ctx, question, trust_how(ctx, client), lambda: _start_trusted(ctx, client, path))
    return None


def _start_trusted(ctx: Context, client: str, path: Path) -> Deferred:
    """Once the person trusted the file at ``path``: its servers, read again, started."""
    found = [one for one in read_client(client) if one.place.path == path and one.trusted]
    forget_untrusted(ctx, path)
    return starting(ctx, [one.config for one in found])


def _save(ctx: Context, found: Found, scope: str) -> None:
    report_saved(ctx, save_server(found.config, scope, refs=found.refs))


def _dry_run(found: list[Found]) -> Any:
    from .tables import found_frame

    rows = [
        {
            "name": one.config.name,
            "transport": one.config.transport,
            "target": one.target(),  # a ${VAR} shown as written, never expanded
            "client": one.place.client,
            "scope": one.place.scope,
            "trusted": one.trusted,  # False: a project file not trusted: never started or saved
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
                servers, current = held(place)
            except ConfigError as e:
                row.update(exists=True, servers=None, trusted=None, error=str(e))
            else:
                exists = servers is not None
                row.update(exists=exists, servers=len(servers) if servers is not None else None,
                           trusted=is_trusted(place, current) if exists else None, error=None)  # fmt: skip
            rows.append(row)
    return places_frame(rows)
