"""MCP Apps (the extension ``io.modelcontextprotocol/ui``, specification 2026-01-26): a tool
whose ``_meta.ui.resourceUri`` names a ``ui://`` resource has an interactive view (sans-IO).

What is decided here, from what a server sent: which tools have an app and who may call them
(``visibility``: ``"model"``, the person and their code; ``"app"``, the app itself), whether a
read resource is an app's document, and the Content-Security-Policy and ``allow`` attribute
its frame gets. The default policy is the specification's for an app that declares no
domains; declared domains are added only where the specification puts them, and only if
each is a plain origin (anything that could end a directive is dropped, never quoted).
Everything here is data from an untrusted server.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any

JSON = dict[str, Any]

EXTENSION = "io.modelcontextprotocol/ui"
MIME_TYPE = "text/html;profile=mcp-app"
LEGACY_URI_KEY = "ui/resourceUri"  # the flat key of early servers (the TypeScript SDK writes both)
VISIBILITIES = ("model", "app")
MAX_DOCUMENT = 8 << 20  # bytes of an app's HTML: the examples are 0.2-0.5 MB

# The specification's policy for an app that declares nothing, with its rules for frames,
# objects and the base URI; forms may not post anywhere.
_DEFAULT = {
    "default-src": ["'none'"],
    "script-src": ["'self'", "'unsafe-inline'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "media-src": ["'self'", "data:"],
    "connect-src": ["'none'"],
    "frame-src": ["'none'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'none'"],
}
# Where each declared list of domains goes (the specification's template).
_DECLARED = {
    "resourceDomains": ("script-src", "style-src", "img-src", "font-src", "media-src"),
    "connectDomains": ("connect-src",),
    "frameDomains": ("frame-src",),
    "baseUriDomains": ("base-uri",),
}
# A declared domain: an https or wss origin, a leading "*." allowed, an optional port.
_ORIGIN = re.compile(r"^(?:https|wss)://(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::\d{1,5})?$")
_PERMISSIONS = {"camera": "camera", "microphone": "microphone", "geolocation": "geolocation",
                "clipboardWrite": "clipboard-write"}  # fmt: skip


@dataclass(frozen=True)
class AppLink:
    """A tool's app: the ``ui://`` resource it shows, and who may call the tool."""

    uri: str
    visibility: tuple[str, ...] = VISIBILITIES

    @property
    def for_model(self) -> bool:
        """Callable by the person and their code (listed, a function, mapped)."""
        return "model" in self.visibility

    @property
    def for_app(self) -> bool:
        """Callable by an app of the same server, through the host."""
        return "app" in self.visibility


def link_of(tool: JSON) -> AppLink | None:
    """The app a tool (a ``tools/list`` entry) declares, if any: ``_meta.ui.resourceUri``,
    else the flat legacy key; a URI that is not ``ui://`` is no app."""
    meta = tool.get("_meta")
    if not isinstance(meta, dict):
        return None
    ui = meta.get("ui")
    uri = ui.get("resourceUri") if isinstance(ui, dict) else None
    if not isinstance(uri, str):
        uri = meta.get(LEGACY_URI_KEY)
    if not isinstance(uri, str) or not uri.startswith("ui://"):
        return None
    return AppLink(uri, visibility_of(tool))


def visibility_of(tool: JSON) -> tuple[str, ...]:
    """Who may call a tool: ``_meta.ui.visibility``, both when absent; unknown values dropped.
    A tool without an app is the model's."""
    meta = tool.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    given = ui.get("visibility") if isinstance(ui, dict) else None
    if not isinstance(given, list):
        return VISIBILITIES
    return tuple(v for v in VISIBILITIES if v in given)


def for_model(tool: JSON) -> bool:
    """Whether the person and their code see and call this tool (not an app-only one)."""
    return "model" in visibility_of(tool)


@dataclass(frozen=True)
class Document:
    """An app's HTML as read, and what its resource declares (``_meta.ui``)."""

    html: str
    ui: JSON

    @property
    def prefers_border(self) -> bool | None:
        value = self.ui.get("prefersBorder")
        return value if isinstance(value, bool) else None


def document_of(result: JSON, listed: JSON | None = None) -> Document:
    """The app's document in a ``resources/read`` result: one content item, of the app
    MIME type, text (or base64 ``blob``); its ``_meta.ui`` over the listing's. Raises
    ValueError saying what is wrong."""
    contents = result.get("contents")
    if not isinstance(contents, list) or len(contents) != 1 or not isinstance(contents[0], dict):
        count = len(contents) if isinstance(contents, list) else 0
        raise ValueError(f"an app's resource has one content item; this one has {count}")
    item = contents[0]
    mime = item.get("mimeType")
    if mime != MIME_TYPE:
        raise ValueError(f"an app's resource is {MIME_TYPE}; this one is {str(mime)[:80]!r}")
    if isinstance(item.get("text"), str):
        html = item["text"]
    elif isinstance(item.get("blob"), str):
        try:
            html = base64.b64decode(item["blob"], validate=True).decode("utf-8")
        except ValueError as e:
            raise ValueError(f"an app's resource blob is not base64 UTF-8 ({e})") from None
    else:
        raise ValueError("an app's resource has neither text nor blob")
    if len(html.encode("utf-8", "replace")) > MAX_DOCUMENT:
        raise ValueError(f"an app's document is over {MAX_DOCUMENT >> 20} MB")
    return Document(html, _ui(item) or _ui(listed or {}))


def _ui(entry: JSON) -> JSON:
    meta = entry.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    return ui if isinstance(ui, dict) else {}


def content_security_policy(ui: JSON) -> str:
    """The policy for an app's frame: the default, plus the domains its resource declares
    (``ui.csp``) where the specification puts them. A domain that is not a plain https or
    wss origin is dropped (``dropped_domains`` names them)."""
    directives = {name: list(values) for name, values in _DEFAULT.items()}
    for key, names in _DECLARED.items():
        domains = _domains(ui, key)
        if not domains:
            continue
        for name in names:
            if name == "connect-src":
                directives[name] = ["'self'", *domains]
            elif name in ("frame-src", "base-uri"):  # in place of 'none' or 'self'
                directives[name] = domains
            else:
                directives[name] = directives[name] + domains
    return "; ".join(f"{name} {' '.join(values)}" for name, values in directives.items())


def dropped_domains(ui: JSON) -> list[str]:
    """Declared domains the policy leaves out, for a line saying so."""
    csp = ui.get("csp")
    if not isinstance(csp, dict):
        return []
    out: list[str] = []
    for key in _DECLARED:
        values = csp.get(key)
        if isinstance(values, list):
            out += [str(v)[:80] for v in values if not (isinstance(v, str) and _ORIGIN.match(v))]
    return out


def _domains(ui: JSON, key: str) -> list[str]:
    csp = ui.get("csp")
    values = csp.get(key) if isinstance(csp, dict) else None
    if not isinstance(values, list):
        return []
    return [v for v in values if isinstance(v, str) and _ORIGIN.match(v)]


def with_policy(html: str, policy: str) -> str:
    """The document with ``policy`` as its first element: a ``<meta>`` Content-Security-Policy
    after a doctype of our own, before anything of the server's (a ``<head>`` looked for in
    its text could sit in a comment, leaving the policy unread). The server's own doctype,
    now late, is ignored; its ``<html>`` and ``<head>`` join the ones the parser opened."""
    quoted = policy.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return f'<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="{quoted}">{html}'


def allow_attribute(ui: JSON) -> str:
    """The frame's ``allow`` attribute: only the permissions the resource declares."""
    permissions = ui.get("permissions")
    if not isinstance(permissions, dict):
        return ""
    return "; ".join(feature for key, feature in _PERMISSIONS.items() if isinstance(permissions.get(key), dict))


__all__ = [
    "EXTENSION",
    "LEGACY_URI_KEY",
    "MAX_DOCUMENT",
    "MIME_TYPE",
    "VISIBILITIES",
    "AppLink",
    "Document",
    "allow_attribute",
    "content_security_policy",
    "document_of",
    "dropped_domains",
    "for_model",
    "link_of",
    "visibility_of",
    "with_policy",
]
