"""Asking the person whether to trust a folder's project servers (core/config/trust.py),
for ``%mcp load`` and the command line alike: through the interaction (a card in a
notebook, a prompt on a terminal), or, where nobody can answer, a line saying how."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..core.config.scopes import Scopes, project_folder, read_scopes
from ..core.config.servers import ServerConfig
from ..core.config.trust import TrustQuestion, read_project_file, trust_file, trust_folder
from ..errors import ConfigError
from ..runtime import Client
from . import serverdisplay
from .base import Context, Deferred, counts
from .steps import Taker

__all__ = [
    "TRUST_HOW",
    "ask_about",
    "ask_trust",
    "forget_untrusted",
    "keep_untrusted",
    "offer_trust",
    "starting",
    "untrusted_rows",
]

TRUST_HOW = (
    "%mcp load --trust trusts this folder as it is now (./.mcp.json and other clients' project files) and starts them"
)
# What a notebook's last %mcp load (and load --from, per client) left unstarted, by client:
# by project file, the folder it was in, its servers and how to trust them. %mcp list shows
# them while that is still the current folder.
Untrusted = tuple[Path, dict[str, ServerConfig], str]
UNTRUSTED: weakref.WeakKeyDictionary[Client, dict[Path, Untrusted]] = weakref.WeakKeyDictionary()


def keep_untrusted(ctx: Context, path: Path, servers: dict[str, ServerConfig], how: str) -> None:
    """Remember the servers of project file ``path`` left unstarted (none: forget it), for
    ``%mcp list`` in a notebook (the command line's source knows its own)."""
    kept = UNTRUSTED.setdefault(ctx.client, {})
    kept.pop(path, None)
    if servers:
        kept[path] = (project_folder(), servers, how)


def forget_untrusted(ctx: Context, path: Path) -> None:
    """``path``'s servers were trusted and started: no longer listed as untrusted."""
    UNTRUSTED.get(ctx.client, {}).pop(path, None)


def offer_trust(ctx: Context, found: Scopes | None) -> None:
    """After ``%mcp load`` started what it may: say what a project server replaces, and ask
    about the folder's servers not trusted (trusted, they start: a line each). None: a
    file the person named, nothing to ask."""
    if found is None:
        return
    for note in found.notes(None):
        ctx.out(f"⚠ {note}")
    if found.project_path is not None:
        keep_untrusted(ctx, found.project_path, found.untrusted, TRUST_HOW)
    if found.question is not None:
        ask_trust(ctx, found.question, TRUST_HOW, lambda scopes: _start_project(ctx, scopes))


def _start_project(ctx: Context, scopes: Scopes) -> Deferred:
    if scopes.project_path is not None:
        forget_untrusted(ctx, scopes.project_path)
    notes = [f"⚠ {n}" for n in scopes.notes(None)]
    return starting(ctx, [c for c in scopes.servers.values() if c.source == "project"], notes)


def starting(ctx: Context, configs: Iterable[ServerConfig], notes: Iterable[str] = ()) -> Deferred:
    """Start the servers trusted just now, together: ``notes`` and their lines. Deferred: a
    card's click awaits it in a task (a server slow to start, or asking for a login in the
    card, holds nothing), a prompt runs it."""
    servers, said = list(configs), list(notes)
    add = Deferred(lambda: ctx.client.add_configs(servers), lambda: ctx.client.aadd_configs(servers))

    async def logic(taker: Taker) -> list[str]:
        started = await taker.take(add)
        return [*said, *(serverdisplay.summary_line(s, counts(s), ctx.server_text) for s in started)]

    return Deferred.of(logic)


def untrusted_rows(ctx: Context) -> list[dict[str, Any]]:
    """``%mcp list``'s rows for the project servers of a folder not trusted (status
    untrusted): the command line's source knows them; in a notebook, the last %mcp load's
    and %mcp load --from's."""
    if ctx.source is not None:
        listed = [(config, "see --trust") for config in ctx.source.untrusted().values()]
    else:
        here = project_folder()  # another folder's (the notebook moved): not this one's to list
        kept = UNTRUSTED.get(ctx.client, {}).values()
        listed = [(config, how) for folder, servers, how in kept if folder == here for config in servers.values()]
    rows = []
    for config, how in listed:
        name = config.name
        mine = ctx.client[name].config.source if name in ctx.client else None
        used = f"; your {mine} server {name!r} is used" if mine in ("user", "local") else ""
        rows.append({
            "name": name, "transport": config.transport, "status": "untrusted", "source": config.source,
            "server": None, "version": None, "protocol": config.protocol, "login": config.login(),
            "error": f"this folder is not trusted: not started ({how}){used}",
            "tools": None, "resources": None, "prompts": None,
        })  # fmt: skip
    return rows


def ask_trust(
    ctx: Context, question: TrustQuestion, how: str, then: Callable[[Scopes], list[str] | Deferred], *, say: bool = True
) -> bool:
    """Ask whether to trust ``question``'s folder (its ``./.mcp.json``); on yes, remember it
    and call ``then`` with the scopes read again (its project servers now among ``servers``,
    expanded), showing the lines it gives. Whether the person was asked (False: a line says
    ``how``, unless not ``say``: the caller's error will)."""
    return ask_about(ctx, question, how, lambda: then(read_scopes(question.folder)), say=say)


def ask_about(
    ctx: Context, question: TrustQuestion, how: str, then: Callable[[], list[str] | Deferred], *, say: bool = True
) -> bool:
    """``ask_trust`` for any project file (another client's too): on yes, the file as the
    person was shown it is trusted and ``then`` reads it again and starts what it may (its
    lines, or a Deferred giving them: ``starting``)."""

    async def logic(yes: bool, taker: Taker) -> list[str]:
        if not yes:
            return [question.untrusted_note(how)]
        try:
            now = read_project_file(question.path)
        except ConfigError as e:
            return [f"{e}; nothing was trusted"]
        if now is None or now[1] != question.digest:
            return [f"{question.path}: it changed while you were asked; nothing was trusted: ask again"]
        trust_folder(question.folder, {question.name: question.digest})
        # Read again by ``then``: used only if the file is still the one trusted.
        done = then()
        lines = await taker.take(done) if isinstance(done, Deferred) else done
        return [f"trusted {question.path} (remembered in {trust_file()})", *lines]

    def answer(yes: bool) -> Deferred:
        return Deferred.of(lambda taker: logic(yes, taker))

    if ctx.client.interaction.ask_trust(question, answer):
        return True
    if say:
        ctx.out(f"⚠ {question.untrusted_note(how)}")
    return False
