"""Typed views of protocol results. Each keeps the server's dict as ``raw``."""

from __future__ import annotations

import base64
import enum
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .protocol import apps
from .safety.text import printable
from .tables.frames import contents_frame
from .tables.readers import result_frame, result_tables
from .views import views

JSON = dict[str, Any]


class Status(str, enum.Enum):
    CONNECTING = "connecting"
    CONNECTED = "connected"
    FAILED = "failed"
    NEEDS_AUTH = "needs_auth"
    CLOSED = "closed"
    DISABLED = "disabled"  # "disabled": true in its config file: registered, not connected

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Tool:
    server: str
    name: str
    qualified_name: str
    title: str | None
    description: str | None = field(repr=False)
    input_schema: JSON = field(repr=False)
    output_schema: JSON | None = field(repr=False)
    annotations: JSON = field(repr=False)
    raw: JSON = field(repr=False)
    # Why the server's tool lists leave it out (the setting and where), or None: it is used.
    excluded: str | None = field(default=None, repr=False)

    @classmethod
    def from_raw(cls, server: str, qualified_name: str, raw: JSON, excluded: str | None = None) -> Tool:
        annotations = raw.get("annotations") or {}
        return cls(
            server=server,
            name=raw.get("name", ""),
            qualified_name=qualified_name,
            title=raw.get("title") or annotations.get("title"),
            description=raw.get("description"),
            input_schema=raw.get("inputSchema") or {"type": "object"},
            output_schema=raw.get("outputSchema"),
            annotations=annotations,
            raw=raw,
            excluded=excluded,
        )

    # Hints as the spec defines their defaults when absent. They are untrusted.
    @property
    def read_only(self) -> bool:
        return bool(self.annotations.get("readOnlyHint", False))

    @property
    def destructive(self) -> bool:
        return not self.read_only and bool(self.annotations.get("destructiveHint", True))

    @property
    def idempotent(self) -> bool:
        return bool(self.annotations.get("idempotentHint", False))

    @property
    def open_world(self) -> bool:
        return bool(self.annotations.get("openWorldHint", True))

    @property
    def required_arguments(self) -> list[str]:
        return list(self.input_schema.get("required") or [])

    # MCP Apps (core/protocol/apps.py): a view the server ships with the tool, and who calls it.
    @property
    def app(self) -> str | None:
        """The ``ui://`` resource of the tool's interactive view, if it has one."""
        link = apps.link_of(self.raw)
        return link.uri if link else None

    @property
    def visibility(self) -> tuple[str, ...]:
        """Who may call the tool: ``"model"`` (the person and their code), ``"app"`` (its view)."""
        return apps.visibility_of(self.raw)

    @property
    def app_only(self) -> bool:
        """Only its server's app calls it: not a function, not in tool schemas or maps."""
        return "model" not in self.visibility


@dataclass(frozen=True)
class Resource:
    server: str
    uri: str
    name: str | None
    title: str | None
    mime_type: str | None
    size: int | None
    description: str | None
    raw: JSON = field(repr=False)

    @classmethod
    def from_raw(cls, server: str, raw: JSON) -> Resource:
        return cls(
            server,
            raw.get("uri", ""),
            raw.get("name"),
            raw.get("title"),
            raw.get("mimeType"),
            raw.get("size"),
            raw.get("description"),
            raw,
        )


@dataclass(frozen=True)
class ResourceTemplate:
    server: str
    uri_template: str
    name: str | None
    title: str | None
    mime_type: str | None
    description: str | None
    raw: JSON = field(repr=False)

    @classmethod
    def from_raw(cls, server: str, raw: JSON) -> ResourceTemplate:
        return cls(
            server,
            raw.get("uriTemplate", ""),
            raw.get("name"),
            raw.get("title"),
            raw.get("mimeType"),
            raw.get("description"),
            raw,
        )


@dataclass(frozen=True)
class Prompt:
    server: str
    name: str
    title: str | None
    description: str | None
    arguments: list[JSON]
    raw: JSON = field(repr=False)

    @classmethod
    def from_raw(cls, server: str, raw: JSON) -> Prompt:
        return cls(
            server, raw.get("name", ""), raw.get("title"), raw.get("description"), raw.get("arguments") or [], raw
        )


def _objects(value: Any) -> list[JSON]:
    """The objects of a list a server sent (content blocks, contents, messages); anything
    else in it (or instead of it) is left to ``raw``."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def content_text(content: Any) -> str:
    """The text blocks of a list a server sent (content, contents), joined by newlines;
    anything else in it is skipped (``CallResult.text``, and a bulk map's every row)."""
    if not isinstance(content, list):
        return ""
    if len(content) == 1:  # the common case (a bulk map's every row): no list, no join
        block = content[0]
        text = block.get("text") if isinstance(block, dict) else None
        return text if isinstance(text, str) else ""
    # A list, not a generator: join makes one of a generator first.
    return "\n".join([b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)])


class _ShowsItself:
    """Text and HTML for IPython, Jupyter and any frontend that asks for a MIME bundle,
    with or without ``%load_ext``."""

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        # The renderers live in the notebook layer (core/views.py), imported on the first display.
        return views().mimebundle(self, include, exclude)


@dataclass(frozen=True)
class CallResult(_ShowsItself):
    """The result of ``tools/call``. ``is_error`` means the tool failed (not the protocol)."""

    server: str
    tool: str
    content: list[JSON]
    structured: Any
    is_error: bool
    output_error: str | None  # why structuredContent breaks the outputSchema, if it does
    raw: JSON = field(repr=False)
    # The view shown with it (MCP Apps: a tool with a ui:// resource, where views show).
    app: ClassVar[Any] = None

    def __repr__(self) -> str:
        n = len(self.content)
        parts = [f"{n} content block{'s' * (n != 1)}"]
        if self.structured is not None:
            parts.append("structured")
        if self.is_error:
            parts.append("is_error=True")
        return f"<CallResult {self.server}.{self.tool}: {', '.join(parts)}>"

    @classmethod
    def from_raw(cls, server: str, tool: str, raw: JSON, output_error: str | None = None) -> CallResult:
        # Its fields set in one go: a frozen dataclass's __init__ sets them one by one through
        # object.__setattr__, a cost a bulk map pays on every row.
        result = object.__new__(cls)
        result.__dict__.update(
            server=server,
            tool=tool,
            content=_objects(raw.get("content")),
            structured=raw.get("structuredContent"),
            is_error=bool(raw.get("isError")),
            output_error=output_error,
            raw=raw,
        )
        return result

    @property
    def text(self) -> str:
        """The text blocks of the content, joined by newlines."""
        return content_text(self.content)

    def to_frame(self, format: str | None = None) -> Any:
        """A pandas DataFrame of the result's table, with real dtypes: the structured records,
        else each text block read as JSON, JSON Lines, CSV/TSV, a Markdown table or a Python
        literal, else embedded resources by MIME type (core/tables/readers.py has the order).
        ``format`` ("records", "json", "jsonl", "csv", "tsv", "markdown", "python",
        "resource") forces one reader. Raises ValueError (one line) when nothing reads."""
        return result_frame(self.structured, self.content, self.tool, format)  # pandas is imported here, not before

    def tables(self, format: str | None = None) -> list[Any]:
        """Every table in the result (a list of DataFrames, possibly empty): the structured
        records' first, then each content block's."""
        return result_tables(self.structured, self.content, self.tool, format)


@dataclass(frozen=True)
class ReadResult(_ShowsItself):
    """The result of ``resources/read``: one or more contents, text or blob."""

    server: str
    uri: str
    contents: list[JSON]
    raw: JSON = field(repr=False)

    def __repr__(self) -> str:
        size = sum(len(str(c.get("text", c.get("blob", "")))) for c in self.contents)
        shown = f"<ReadResult {self.uri}: {len(self.contents)} item(s), {self.mime_type or 'no type'}, {size:,} chars>"
        return printable(shown)  # the MIME type is the server's

    @classmethod
    def from_raw(cls, server: str, uri: str, raw: JSON) -> ReadResult:
        return cls(server, uri, _objects(raw.get("contents")), raw)

    @property
    def text(self) -> str:
        return content_text(self.contents)

    @property
    def bytes(self) -> bytes:
        """The first content's bytes: a blob decoded, or text encoded as UTF-8."""
        for item in self.contents:
            if "blob" in item:
                return base64.b64decode(item["blob"])
            if "text" in item:
                return str(item["text"]).encode()
        return b""

    @property
    def mime_type(self) -> str | None:
        return self.contents[0].get("mimeType") if self.contents else None

    def to_frame(self) -> Any:
        """A pandas DataFrame of a CSV, TSV, JSON records, JSON Lines or Parquet resource."""
        return contents_frame(self.contents, self.uri)


@dataclass(frozen=True)
class PromptResult(_ShowsItself):
    server: str
    name: str
    description: str | None
    messages: list[JSON]
    raw: JSON = field(repr=False)

    def __repr__(self) -> str:
        n = len(self.messages)
        return f"<PromptResult {self.server}.{self.name}: {n} message{'s' * (n != 1)}>"

    @classmethod
    def from_raw(cls, server: str, name: str, raw: JSON) -> PromptResult:
        messages = [
            m if isinstance(m.get("content"), dict) else {**m, "content": {}} for m in _objects(raw.get("messages"))
        ]
        description = raw.get("description")
        return cls(server, name, description if isinstance(description, str) else None, messages, raw)

    @property
    def text(self) -> str:
        return content_text([m.get("content") or {} for m in self.messages])
