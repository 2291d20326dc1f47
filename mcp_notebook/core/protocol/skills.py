"""Skills (the ``io.modelcontextprotocol/skills`` extension, SEP-2640), sans-IO: what a
server's skill entries must be, and what a host must check before it uses a skill's files.

A server that declares the extension (``capabilities.extensions``) lists its skills with
``skills/list`` (paged) and gives one by the URI of its ``SKILL.md`` with ``skills/get``.
An entry carries the skill's YAML frontmatter as JSON and every file it has (``uri``,
``digest`` ``sha256:<hex>``, ``size`` in bytes), or ``"dynamic"``. The files are ordinary
resources. A host reads only the files an entry lists, never before it is asked to, and
checks each one's size and digest, and ``SKILL.md``'s frontmatter against the entry: a
mismatch discards the content. A digest proves the content is what the entry said, not
that it can be trusted: skills are the server's text like anything else it sends.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from ...errors import ProtocolError
from ..safety.text import clipped, printable

EXTENSION = "io.modelcontextprotocol/skills"
MAX_FILES = 512  # what a host must accept in one skill, at least
MAX_BYTES = 16 * 1024 * 1024
MAX_FRONTMATTER = 64 * 1024  # characters: a name, a description and a few fields need far less
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
JSON = dict[str, Any]


def offers_skills(capabilities: JSON) -> bool:
    """Whether the server declared the skills extension."""
    extensions = capabilities.get("extensions")
    return isinstance(extensions, dict) and isinstance(extensions.get(EXTENSION), dict)


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill, as its entry lists it."""

    uri: str
    digest: str
    size: int


@dataclass(frozen=True)
class Skill:
    """A server's skill: ``name`` and ``description`` from its frontmatter (all of which is
    ``frontmatter``), the URI of its ``SKILL.md``, and its files (None: ``"dynamic"``, the
    server does not say which)."""

    server: str
    uri: str
    frontmatter: JSON = field(repr=False)
    files: tuple[SkillFile, ...] | None = field(repr=False)

    def __repr__(self) -> str:
        count = "dynamic" if self.files is None else f"{len(self.files)} file(s)"
        return printable(f"<Skill {self.server}:{self.name} {self.uri} {count}>")

    @property
    def name(self) -> str:
        return str(self.frontmatter.get("name", ""))

    @property
    def description(self) -> str:
        return str(self.frontmatter.get("description", ""))

    @property
    def folder(self) -> str:
        """The URI of the folder holding SKILL.md: relative paths resolve against it."""
        return self.uri.rsplit("/", 1)[0]

    @property
    def size(self) -> int | None:
        return None if self.files is None else sum(f.size for f in self.files)

    def relative(self, file: SkillFile) -> str:
        """``file``'s path in the skill (``reference.md``, ``scripts/plot.py``)."""
        prefix = self.folder + "/"
        return file.uri[len(prefix) :] if file.uri.startswith(prefix) else file.uri

    def file(self, path: str) -> SkillFile:
        """The listed file at ``path`` (relative to SKILL.md's folder, or a full URI); a
        ValueError naming the files there are for a path not listed (a host reads nothing else)."""
        if self.files is None:
            raise ValueError(f"skill {self.name!r} of {self.server} lists no files (it is dynamic): nothing is read")
        uri = path if "://" in path else f"{self.folder}/{posixpath.normpath(path).lstrip('/')}"
        for listed in self.files:
            if listed.uri == uri:
                return listed
        names = ", ".join(self.relative(f) for f in self.files)
        raise ValueError(f"skill {self.name!r} of {self.server} lists no file {path!r} (it lists: {names}): not read")


def skill_of(server: str, entry: Any) -> Skill:
    """A skill from its entry in ``skills/list`` or ``skills/get``; ProtocolError saying
    what is wrong with one a host must not load."""
    if not isinstance(entry, dict):
        raise ProtocolError(f"{server}: a skill entry is not an object")
    uri, frontmatter, resources = entry.get("uri"), entry.get("frontmatter"), entry.get("resources")
    if not isinstance(uri, str) or not uri.endswith("/SKILL.md"):
        raise ProtocolError(f"{server}: a skill entry's uri must name its SKILL.md, not {printable(repr(uri))}")
    where = f"{server}: skill {printable(uri)}"
    if not isinstance(frontmatter, dict) or not isinstance(frontmatter.get("name"), str):
        raise ProtocolError(f"{where}: its frontmatter must be an object with a name")
    if uri.rsplit("/", 2)[-2] != frontmatter["name"]:
        raise ProtocolError(f"{where}: its folder is not named {printable(frontmatter['name'])!r}, as its name says")
    if resources == "dynamic":
        return Skill(server, uri, frontmatter, None)
    if not isinstance(resources, list):
        raise ProtocolError(f'{where}: its resources must be a list of files or "dynamic"')
    files = []
    for item in resources:
        if not isinstance(item, dict):
            raise ProtocolError(f"{where}: a file entry is not an object")
        file_uri, digest, size = item.get("uri"), item.get("digest"), item.get("size")
        if not isinstance(file_uri, str) or not isinstance(digest, str) or not _DIGEST.match(digest):
            raise ProtocolError(f"{where}: a file entry needs a uri and a sha256:<64 hex> digest")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ProtocolError(f"{where}: {printable(file_uri)} has no size in bytes")
        files.append(SkillFile(file_uri, digest, size))
    if uri not in {f.uri for f in files}:
        raise ProtocolError(f"{where}: its files do not include its SKILL.md")
    if len(files) > MAX_FILES or sum(f.size for f in files) > MAX_BYTES:
        raise ProtocolError(f"{where}: more than {MAX_FILES} files or 16 MiB: not loaded")
    return Skill(server, uri, frontmatter, tuple(files))


def check_content(skill: Skill, file: SkillFile, raw: bytes) -> None:
    """ProtocolError unless ``raw`` (a file as read) has the size and digest its entry
    lists: the content is then discarded."""
    digest = "sha256:" + hashlib.sha256(raw).hexdigest()
    if len(raw) != file.size or digest != file.digest:
        raise ProtocolError(
            f"{skill.server}: {printable(file.uri)} is not what skill {printable(skill.name)!r} lists "
            f"({len(raw)} bytes, {digest[:15]}… where it lists {file.size} bytes, {file.digest[:15]}…): "
            "discarded; list the skills again (server.list_skills(refresh=True)) for its current entry"
        )


def frontmatter_of(text: str, source: str = "SKILL.md") -> JSON:
    """The YAML frontmatter of a SKILL.md (the block between its first two ``---`` lines);
    ProtocolError, naming ``source``, if it has none, it is not a mapping, or it is more
    than a frontmatter can need: over ``MAX_FRONTMATTER`` characters, or using YAML aliases
    (refused as the parser meets them, before they expand: ten a level are a billion values
    at nine levels, from a few hundred bytes)."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise ProtocolError(f"{source} does not start with a --- frontmatter block")
    end = _closing(lines)
    if end is None:
        raise ProtocolError(f"{source}'s frontmatter has no closing ---")
    block = "".join(lines[1:end])
    if len(block) > MAX_FRONTMATTER:
        raise ProtocolError(
            f"{source}'s frontmatter is {len(block):,} characters, over {MAX_FRONTMATTER:,}: refused, not parsed"
        )
    try:
        data = _load_without_aliases(block, source)
    except RecursionError:
        raise ProtocolError(f"{source}'s frontmatter is nested too deep: refused") from None
    if not isinstance(data, dict):
        raise ProtocolError(f"{source}'s frontmatter is not a mapping")
    return data


def _load_without_aliases(block: str, source: str) -> Any:
    """``block`` as YAML by the safe loader, an alias (``*name``) refused when the composer
    meets it: nothing a server wrote is expanded."""
    import yaml

    class Loader(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                alias = printable(str(self.peek_event().anchor))[:40]  # type: ignore[no-untyped-call]
                raise ProtocolError(
                    f"{source}'s frontmatter uses a YAML alias (*{alias}): refused, "
                    "not expanded (aliases can grow a few bytes into gigabytes)"
                )
            return super().compose_node(parent, index)

    try:
        return yaml.load(block, Loader=Loader)  # a SafeLoader: only plain data
    except yaml.YAMLError as e:
        first = str(e).partition("\n")[0]
        raise ProtocolError(f"{source}'s frontmatter is not valid YAML ({clipped(first)})") from None
    except ValueError as e:  # a value Python refuses: an integer of over 4,300 digits
        raise ProtocolError(
            f"{source}'s frontmatter holds a value it cannot read ({clipped(str(e))}): refused"
        ) from None


def body_of(text: str) -> str:
    """A SKILL.md's text after its frontmatter."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    end = _closing(lines) if lines and lines[0].strip() == "---" else None
    return text if end is None else "".join(lines[end + 1 :]).lstrip("\n")


def _closing(lines: list[str]) -> int | None:
    """The index of the ``---`` line that closes the frontmatter opened on the first line."""
    return next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)


def check_frontmatter(skill: Skill, text: str) -> None:
    """ProtocolError unless SKILL.md's frontmatter is the entry's, field by field."""
    found = frontmatter_of(text, f"{skill.server}: {printable(skill.uri)}")
    if _plain(found) != _plain(skill.frontmatter):
        differ = sorted(
            k for k in {*found, *skill.frontmatter} if _plain(found.get(k)) != _plain(skill.frontmatter.get(k))
        )
        raise ProtocolError(
            f"{skill.server}: {printable(skill.uri)}'s frontmatter differs from its entry's "
            f"({printable(', '.join(map(str, differ)))}): discarded"
        )


def _plain(value: Any) -> Any:
    """YAML's values as JSON carries them (a date is text there)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


__all__ = [
    "EXTENSION",
    "MAX_FRONTMATTER",
    "Skill",
    "SkillFile",
    "body_of",
    "check_content",
    "check_frontmatter",
    "frontmatter_of",
    "offers_skills",
    "skill_of",
]
