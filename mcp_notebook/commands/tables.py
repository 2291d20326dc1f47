"""The DataFrames of listings: ``%mcp servers/tools/resources/templates/prompts/roots/tasks``.

A listing's text (names, titles, descriptions) is the server's, and pandas prints strings
as they are in a terminal: listings hold it printable, and names as ``shown_name`` shows
them (a tool ``ec\\x1b[mho`` must not list as ``echo``; core/safety/text.py). A result's table
(``to_frame()``) is core/tables/frames.py's: data, never changed."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pandas as pd

from ..core.protocol.tasks import TASK_COLUMNS, TaskRecord
from ..core.safety.text import printable, shown_name
from ..core.tables.frames import records_frame
from ..core.types import Prompt, Resource, ResourceTemplate, Tool

__all__ = [
    "PROMPT_COLUMNS",
    "RESOURCE_COLUMNS",
    "SERVER_COLUMNS",
    "TEMPLATE_COLUMNS",
    "TOOL_COLUMNS",
    "changes_frame",
    "found_frame",
    "prompt_arguments",
    "places_frame",
    "prompts_frame",
    "resources_frame",
    "roots_frame",
    "servers_frame",
    "skills_frame",
    "tasks_frame",
    "templates_frame",
    "tool_arguments",
    "tools_frame",
]

SERVER_COLUMNS = [
    "name",
    "transport",
    "status",
    "source",
    "server",
    "version",
    "protocol",
    "tools",
    "resources",
    "prompts",
    "login",
    "error",
]
TOOL_COLUMNS = [
    "server",
    "name",
    "title",
    "description",
    "arguments",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "app",
    "visibility",
    "qualified_name",
]
RESOURCE_COLUMNS = ["server", "uri", "name", "title", "mime_type", "size", "description"]
TEMPLATE_COLUMNS = ["server", "uri_template", "name", "title", "mime_type", "description"]
PROMPT_COLUMNS = ["server", "name", "title", "description", "arguments"]
_HINTS = {
    "read_only": "readOnlyHint",
    "destructive": "destructiveHint",
    "idempotent": "idempotentHint",
    "open_world": "openWorldHint",
}


def _frame(rows: list[dict[str, Any]], columns: list[str], counts: tuple[str, ...] = ()) -> pd.DataFrame:
    """A listing's table; ``counts``: whole-number columns that may be missing (<NA>)."""
    frame = records_frame(
        [{k: printable(v) if isinstance(v, str) else v for k, v in row.items()} for row in rows], columns
    )
    for column in counts:
        frame[column] = frame[column].astype("Int64")
    return frame


CHANGE_COLUMNS = ["kind", "name", "change", "path", "before", "after", "breaking"]


def changes_frame(changes: Iterable[Any]) -> pd.DataFrame:
    """``%mcp diff``: one row a change (core/listings/compare.py's ``Change``)."""
    return _frame([dict(vars(c)) for c in changes], CHANGE_COLUMNS)


FOUND_COLUMNS = ["name", "transport", "target", "client", "scope", "trusted", "file", "disabled"]
PLACE_COLUMNS = ["client", "scope", "file", "exists", "servers", "trusted", "error"]


def found_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """``%mcp load --from CLIENT --dry-run``: what would be added (target: the command line
    or URL, secrets hidden)."""
    return _frame(rows, FOUND_COLUMNS)


def places_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """``%mcp load --from``: the other clients' files, which exist, how many servers each has."""
    return _frame(rows, PLACE_COLUMNS, ("servers",))


SKILL_COLUMNS = ["server", "name", "description", "uri", "files", "bytes", "license"]


def skills_frame(skills: Iterable[Any]) -> pd.DataFrame:
    """``%mcp skills``: one row a skill (files: <NA> where the server says they are dynamic)."""
    rows = [
        {
            "server": s.server,
            "name": s.name,
            "description": s.description,
            "uri": s.uri,
            "files": None if s.files is None else len(s.files),
            "bytes": s.size,
            "license": s.frontmatter.get("license"),
        }
        for s in skills
    ]
    return _frame(rows, SKILL_COLUMNS, ("files", "bytes"))


def servers_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return _frame(rows, SERVER_COLUMNS, ("tools", "resources", "prompts"))


def tool_arguments(tool: Tool) -> str:
    """``a*, b`` — the argument names, required ones marked with ``*``."""
    required = set(tool.required_arguments)
    names = list((tool.input_schema.get("properties") or {}).keys())
    return ", ".join(f"{n}*" if n in required else n for n in names)


def tools_frame(tools: Iterable[Tool]) -> pd.DataFrame:
    # The annotation columns hold the server's hints as sent (untrusted), <NA> when absent.
    rows = [
        {
            "server": t.server,
            "name": shown_name(t.name),
            "title": t.title,
            "description": t.description,
            "arguments": tool_arguments(t),
            **{column: t.annotations.get(hint) for column, hint in _HINTS.items()},
            # MCP Apps: the view's ui:// resource, and who calls the tool ("app" only: its view)
            "app": t.app,
            "visibility": ", ".join(t.visibility) if t.app else None,
            "qualified_name": t.qualified_name,
        }
        for t in tools
    ]
    frame = _frame(rows, TOOL_COLUMNS)
    for column in _HINTS:
        frame[column] = frame[column].astype("boolean")
    return frame


def _fields_frame(items: Iterable[Any], columns: list[str], **computed: Callable[[Any], Any]) -> pd.DataFrame:
    """Columns named like the items' attributes; ``computed`` ones from a function."""
    rows = [{c: computed[c](i) if c in computed else getattr(i, c) for c in columns} for i in items]
    return _frame(rows, columns)


def _name(item: Any) -> Any:
    return shown_name(item.name) if isinstance(item.name, str) else item.name


def resources_frame(resources: Iterable[Resource]) -> pd.DataFrame:
    frame = _fields_frame(resources, RESOURCE_COLUMNS, name=_name)
    frame["size"] = frame["size"].astype("Int64")
    return frame


def templates_frame(templates: Iterable[ResourceTemplate]) -> pd.DataFrame:
    return _fields_frame(templates, TEMPLATE_COLUMNS, name=_name)


def prompt_arguments(prompt: Prompt) -> str:
    return ", ".join(f"{a.get('name')}*" if a.get("required") else str(a.get("name")) for a in prompt.arguments)


def prompts_frame(prompts: Iterable[Prompt]) -> pd.DataFrame:
    return _fields_frame(prompts, PROMPT_COLUMNS, arguments=prompt_arguments, name=_name)


def roots_frame(roots: list[dict[str, Any]]) -> pd.DataFrame:
    return _frame([{"uri": r.get("uri"), "name": r.get("name")} for r in roots], ["uri", "name"])


def tasks_frame(records: Iterable[TaskRecord]) -> pd.DataFrame:
    """``%mcp tasks``: one row per task, its last known state."""
    return _frame([r.row() for r in records], TASK_COLUMNS)
