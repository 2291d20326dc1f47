"""A server's skills (the ``io.modelcontextprotocol/skills`` extension): the operations
``Server`` has for them, and what ``get_skill`` gives.

``list_skills`` pages through ``skills/list`` (kept until ``refresh``); ``get_skill`` finds
a skill by name (or the URI of its SKILL.md, through ``skills/get`` when it is not listed)
and reads its SKILL.md; ``read_skill_file`` reads one of the files its entry lists. Every
file read is checked against the entry (size, digest; SKILL.md's frontmatter too) and
discarded on a mismatch; a file the entry does not list is never asked for; nothing is read
before it is asked for (listing reads no file).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.protocol.skills import Skill, body_of, check_content, check_frontmatter, offers_skills, skill_of
from ..core.safety.markdown import markdown_html
from ..core.safety.text import escape, printable
from ..core.types import ReadResult
from ..errors import ArgumentError, ProtocolError, RPCError
from .context import DEFAULT, Runtime
from .facts import ServerFacts
from .steps import Steps, awaitable, blocking

JSON = dict[str, Any]
INVALID_PARAMS = -32602
_PAGES = 100  # skills/list pages followed at most (a server that pages for ever)
SHOWN = 100_000  # characters of a SKILL.md rendered at most (its text is kept whole)


@dataclass
class SkillDocument:
    """A skill's SKILL.md, read and checked: ``text`` (the whole file) and ``body`` (after
    its frontmatter), with the ``skill`` it belongs to. Shows itself as HTML: the server's
    Markdown rendered with its raw HTML as text and links only to https addresses (its
    first ``SHOWN`` characters, with a note saying where the rest is), then the table of
    its files."""

    skill: Skill
    text: str = field(repr=False)

    def __repr__(self) -> str:
        return printable(f"<SkillDocument {self.skill.server}:{self.skill.name}, {len(self.text):,} chars>")

    @property
    def body(self) -> str:
        return body_of(self.text)

    def _repr_html_(self) -> str:
        skill, body = self.skill, self.body
        shown = body if len(body) <= SHOWN else body[: body.rfind("\n", 0, SHOWN) + 1 or SHOWN]
        head = (
            f"<p><b>{escape(skill.name)}</b> ({escape(skill.server)}): {escape(skill.description)}</p>"
            f"<hr>{markdown_html(shown)}<hr>"
        )
        if shown is not body:
            # Rendering megabytes takes minutes and fills the notebook: the rest stays in .text.
            magic = f"skill = %mcp skill {skill.server} {skill.name}"
            python = f"client[{skill.server!r}].get_skill({skill.name!r}).text"
            head += (
                f"<p><i>Cut: only its first {len(shown):,} of {len(body):,} characters are shown. "
                f"The whole file is this value's <code>.text</code> (<code>{escape(magic)}</code> then "
                f"<code>skill.text</code>; in Python <code>{escape(python)}</code>).</i></p>"
            )
        if skill.files is None:
            return head
        rows = "".join(
            f"<tr><td><code>{escape(skill.relative(f))}</code></td><td>{f.size:,}</td>"
            f"<td><code>{escape(f.digest[:19])}…</code></td></tr>"
            for f in skill.files
        )
        return head + f"<table><tr><th>file</th><th>bytes</th><th>digest</th></tr>{rows}</table>"


class SkillOps(ServerFacts):
    """``Server``'s skill operations (see the module's docstring)."""

    runtime: Runtime
    _skills: list[Skill] | None = None

    def _offered(self) -> None:
        if not offers_skills(self.capabilities):
            raise ArgumentError(
                f"server {self.name!r} offers no skills "
                "(it does not declare the io.modelcontextprotocol/skills extension)"
            )

    async def _list_skills(self, steps: Steps, *, refresh: bool = False) -> list[Skill]:
        """The skills the server lists (every page), kept until ``refresh``: no file is read."""
        if self._skills is not None and not refresh:
            return list(self._skills)
        self._offered()
        connection = self.connection
        skills: list[Skill] = []
        cursor = None
        for _ in range(_PAGES):
            page = await steps.send(connection, "skills/list", {"cursor": cursor} if cursor else {}, DEFAULT)
            entries = page.get("skills")
            if not isinstance(entries, list):
                raise ProtocolError(f"{connection.name}: skills/list answered without a list of skills")
            skills += [skill_of(connection.name, entry) for entry in entries]
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                break
        self._skills = skills
        return list(skills)

    list_skills, alist_skills = blocking(_list_skills), awaitable(_list_skills)

    @property
    def skills(self) -> list[Skill]:
        """The skills the server lists (``list_skills()``, kept)."""
        return self.list_skills()

    async def _find_skill(self, steps: Steps, name: str) -> Skill:
        """A skill by name (one of the listed; several of that name: say which URIs), or by
        the URI of its SKILL.md (``skills/get`` when it is not listed)."""
        listed = await self._list_skills(steps)
        server = self.name
        if "://" in name:
            found = [s for s in listed if s.uri == name]
            if found:
                return found[0]
            try:
                answer = await steps.send(self.connection, "skills/get", {"uri": name}, DEFAULT)
            except RPCError as e:
                if e.code == INVALID_PARAMS:
                    raise ArgumentError(f"server {server!r} has no skill at {printable(name)}") from None
                raise
            skill = skill_of(server, answer.get("skill"))
            if skill.uri != name:
                raise ProtocolError(f"{server}: skills/get for {printable(name)} answered with {printable(skill.uri)}")
            return skill
        found = [s for s in listed if s.name == name]
        if len(found) > 1:
            uris = ", ".join(s.uri for s in found)
            raise ArgumentError(
                f"server {server!r} has {len(found)} skills named {name!r}: give the URI of one ({uris})"
            )
        if not found:
            names = ", ".join(sorted(s.name for s in listed)) or "none"
            raise ArgumentError(f"server {server!r} has no skill named {name!r} (it lists: {printable(names)})")
        return found[0]

    async def _read_checked(self, steps: Steps, skill: Skill, path: str) -> ReadResult:
        try:
            file = skill.file(path)
        except ValueError as e:
            raise ArgumentError(str(e)) from None
        connection = self.connection
        raw = await steps.send(connection, "resources/read", {"uri": file.uri}, DEFAULT)
        read = ReadResult.from_raw(connection.name, file.uri, raw)
        if len(read.contents) != 1 or read.contents[0].get("uri") != file.uri:
            # What the entry's digest covers is one file: anything else is not what it lists.
            raise ProtocolError(
                f"{connection.name}: reading {printable(file.uri)} gave {len(read.contents)} contents, "
                "not that one file: discarded"
            )
        check_content(skill, file, read.bytes)
        return read

    async def _get_skill(self, steps: Steps, name: str) -> SkillDocument:
        """A skill's SKILL.md, by the skill's name (or the URI of its SKILL.md), read and
        checked against its entry (size, digest, frontmatter)."""
        skill = await self._find_skill(steps, name)
        read = await self._read_checked(steps, skill, skill.uri)
        text = read.bytes.decode("utf-8", errors="replace")
        check_frontmatter(skill, text)
        return SkillDocument(skill, text)

    get_skill, aget_skill = blocking(_get_skill), awaitable(_get_skill)

    async def _read_skill_file(self, steps: Steps, skill: str | Skill, path: str) -> ReadResult:
        """One file of a skill (``path`` relative to its SKILL.md's folder, or its URI),
        read only if the skill's entry lists it, and checked against it."""
        found = skill if isinstance(skill, Skill) else await self._find_skill(steps, skill)
        return await self._read_checked(steps, found, path)

    read_skill_file, aread_skill_file = blocking(_read_skill_file), awaitable(_read_skill_file)


__all__ = ["SkillDocument", "SkillOps"]
