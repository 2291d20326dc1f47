"""The config formats we read, as JSON Schemas: data, checked by configcheck.check.

- ``CLAUDE_CODE``: Claude Code's ``.mcp.json``, servers under ``mcpServers``. Our user file
  (core/config/scopes.py) is this format too, and so is each entry of its ``projects``.
- ``VS_CODE``: VS Code's ``mcp.json``, servers under ``servers``.
- ``SERVER_CONFIG``: a ServerConfig made in Python (``Client.add``, ``%mcp add``).

A file is checked in two steps: the document (the servers object, their names, the keys
every server takes), then each server against ``SERVERS[kind]``, the keys of its kind
(stdio, http, sse or auto), which servers.py reads from ``type`` (or ``url`` / ``command``).

Three keywords of ours ride along (JSON Schema ignores keywords it does not know):

- ``message``: what to say when this subschema fails: one template, or one per keyword.
  ``{at}`` is the file and key path (``.mcp.json: mcpServers.s.args[1]``), ``{key}`` the
  last key, ``{value}`` the value (``{value!r}`` its repr), ``{json}`` it as JSON,
  ``{type}`` its type's name (``null`` for None) and ``{root}`` the whole instance.
- ``finite``: true for a number that must be finite (not NaN, not infinite), a keyword
  check.py adds to the validator.
- ``ignored``: with ``additionalProperties: false``, a key not listed is not an error but
  one ConfigWarning, worded per key (``*``: any other key); ``{at}`` is the object holding it.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..auth.settings import GRANTS
from ..protocol.constants import MODERN_PROTOCOL_VERSIONS, PROTOCOL_CHOICES

__all__ = [
    "is_seconds",
    "plain_name",
    "plainly_valid",
    "CLAUDE_CODE",
    "FORMATS",
    "OAUTH_KEYS",
    "SERVERS",
    "SERVER_CONFIG",
    "SERVER_NAME",
    "TRANSPORTS",
    "TRANSPORT_ALIASES",
    "VS_CODE",
]

Schema = dict[str, Any]

_DRAFT = "https://json-schema.org/draft/2020-12/schema"
TRANSPORTS = ("stdio", "http", "sse", "auto")  # auto: Streamable HTTP, else legacy SSE
TRANSPORT_ALIASES = {"streamable-http": "http", "streamableHttp": "http", "streamable_http": "http", "local": "stdio"}
# The oauth object's keys and the ServerConfig.oauth names they set; snake_case is accepted
# too, and callbackPort is Claude Code's name for the redirect port.
OAUTH_KEYS = {"clientId": "client_id", "clientSecret": "client_secret", "clientMetadataUrl": "client_metadata_url",
              "scopes": "scopes", "redirectPort": "redirect_port", "callbackPort": "redirect_port",
              "grant": "grant", "privateKey": "private_key", "privateKeyFile": "private_key_file",
              "signingAlg": "signing_alg", "assertion": "assertion", "assertionFile": "assertion_file",
              "idToken": "id_token", "idTokenFile": "id_token_file", "idpTokenEndpoint": "idp_token_endpoint",
              "idpClientId": "idp_client_id", "idpClientSecret": "idp_client_secret"}  # fmt: skip
_NAME_PATTERN = "^(?!.*__)[A-Za-z0-9_.-]+$"
_BAD_NAME = "invalid server name {value!r}: use letters, digits, '-', '_' and '.' (no '__')"
_PROTOCOLS = ", ".join(PROTOCOL_CHOICES)


def _seconds(message: str) -> Schema:
    # finite (ours, check.py): NaN passes every comparison JSON Schema has, and Infinity (or
    # 1e999) is no deadline; Python's json reads both, TOML writes nan and inf.
    return {"type": ["number", "null"], "exclusiveMinimum": 0, "finite": True, "message": message}


def is_seconds(value: Any) -> bool:
    """True for a timeout that is a deadline: a number of seconds above 0, finite (not NaN)."""
    return type(value) in (int, float) and 0 < value < math.inf


# -- a server in a file ----------------------------------------------------------------------

_PATTERNS = {
    "type": "array",
    "items": {"type": "string", "minLength": 1, "message": "{at}: must be a tool name or glob pattern"},
    "message": "{at}: must be a list of tool names or glob patterns",
}
_TRANSPORT = {
    "enum": [*TRANSPORTS, *TRANSPORT_ALIASES],
    "message": "{at}: unknown transport {value!r}; use stdio, http or sse",
}
_FILE_SECONDS = _seconds("{at}: must be a number above 0, not {json}")
# The keys every server takes. timeout: Claude Code's, in milliseconds; the *_sec: Codex's.
_COMMON = {
    "type": _TRANSPORT,
    "transport": _TRANSPORT,
    "disabled": {"type": "boolean", "message": "{at}: must be true or false"},
    "protocol": {"enum": list(PROTOCOL_CHOICES), "message": "{at}: unknown protocol {json}; use " + _PROTOCOLS},
    "timeout": _FILE_SECONDS,
    "startup_timeout_sec": _FILE_SECONDS,
    "tool_timeout_sec": _FILE_SECONDS,
    # The tools used (globs): ours in camelCase, Codex's in snake_case.
    **{key: _PATTERNS for key in ("enabledTools", "disabledTools", "enabled_tools", "disabled_tools")},
    # Tools that run without asking, though annotated destructive (Roo Code's and Cline's keys).
    **{key: _PATTERNS for key in ("alwaysAllow", "autoApprove")},
    "maxConcurrency": {"type": "integer", "minimum": 1, "message": "{at}: must be a whole number of calls, 1 or more"},
}
_STRING = {"type": "string", "message": "{at}: must be a string, not {type}"}
_OPTIONAL_STRING = {**_STRING, "type": ["string", "null"]}
# Numbers and booleans are written as JSON (servers.py): "PORT": 8080 is "8080".
_STRING_MAP = {
    "type": "object",
    "additionalProperties": {"type": ["string", "number", "boolean"], "message": "{at}: must be a string"},
    "message": "{at}: must be an object of strings",
}
_PORT = {"type": "integer", "minimum": 0, "maximum": 65535, "message": "{at}: must be a port number"}
_GRANT = {"enum": list(GRANTS), "message": "{at}: {value!r} is not a grant; use " + ", ".join(GRANTS)}
_OAUTH = {
    "type": ["object", "null"],
    "properties": {
        key: _PORT
        if name == "redirect_port"
        else _GRANT
        if name == "grant"
        else {"type": "string", "message": "{at}: must be a string"}
        for key, name in [*OAUTH_KEYS.items(), *((name, name) for name in OAUTH_KEYS.values())]
    },
    "additionalProperties": False,
    "ignored": {"*": "{at}: '{key}' is not supported; ignored (known: " + ", ".join(OAUTH_KEYS) + ")"},
    "message": "{at}: must be an object",
}
_KEYS = {
    "stdio": {
        "command": _STRING,
        "args": {"type": "array", "items": _STRING, "message": "{at}: must be a list of strings"},
        "env": _STRING_MAP,
        "envFile": _OPTIONAL_STRING,
        "cwd": _OPTIONAL_STRING,
    },
    "remote": {"url": _STRING, "headers": _STRING_MAP, "oauth": _OAUTH},
}
_REQUIRED = {"stdio": "command", "remote": "url"}
# Keys other clients read that mean nothing here, and what to do instead (braces doubled:
# these are templates).
_HINTS = {"headersHelper": "write headers with ${{VAR}} instead"}

# Phase one: what every server in a file must be, whatever its kind.
_SERVER = {
    "type": "object",
    "properties": _COMMON,
    "anyOf": [{"required": [key]} for key in ("type", "transport", "url", "command", "args")],
    "message": {
        "type": "{at}: must be an object",
        "anyOf": "{at}: needs a command (a stdio server) or a url (an http or sse server)",
    },
}


def _server_of_kind(kind: str) -> Schema:
    """Phase two: the keys a ``kind`` server takes; any other is ignored with a warning."""
    group = "stdio" if kind == "stdio" else "remote"
    other = "remote" if group == "stdio" else "stdio"
    return {
        "$schema": _DRAFT,
        "type": "object",
        "properties": {**_COMMON, **_KEYS[group]},
        "required": [_REQUIRED[group]],
        "additionalProperties": False,
        "message": {"type": "{at}: must be an object", "required": "{at}: missing; it is required"},
        "ignored": {
            **{key: f"{{at}}: '{{key}}' does not apply to a {kind} server; ignored" for key in _KEYS[other]},
            **{key: "{at}: '{key}' is not supported; ignored; " + hint for key, hint in _HINTS.items()},
            "*": "{at}: '{key}' is not supported; ignored",
        },
    }


SERVERS = {kind: _server_of_kind(kind) for kind in TRANSPORTS}


def _servers_file(key: str) -> Schema:
    return {
        "$schema": _DRAFT,
        "type": "object",
        "properties": {
            key: {
                "type": "object",
                "propertyNames": {"pattern": _NAME_PATTERN, "message": "{at}: " + _BAD_NAME},
                "additionalProperties": _SERVER,
                "message": "{at} must be an object of servers by name",
            }
        },
        "message": "{at}: the top level must be a JSON object",
    }


CLAUDE_CODE = _servers_file("mcpServers")
VS_CODE = _servers_file("servers")
CODEX = _servers_file("mcp_servers")  # its TOML's tables, once read as ours (clients.py)
FORMATS = {"mcpServers": CLAUDE_CODE, "servers": VS_CODE, "mcp_servers": CODEX}  # by the key servers are under


# -- a server made in Python -----------------------------------------------------------------

_NAME = {"type": "string", "pattern": _NAME_PATTERN, "message": _BAD_NAME}
_ITS = "server {root[name]!r}: "
_PYTHON_SECONDS = _seconds(_ITS + "{key} must be a number of seconds above 0, not {value!r}")
SERVER_NAME = {"$schema": _DRAFT, "properties": {"name": _NAME}}
SERVER_CONFIG = {  # checks vars(config): the fields, all there
    "$schema": _DRAFT,
    "properties": {
        "name": _NAME,
        "transport": {
            "enum": list(TRANSPORTS),
            "message": _ITS + "unknown transport {value!r}; use stdio, http, sse or auto",
        },
        "startup_timeout": _PYTHON_SECONDS,
        "request_timeout": _PYTHON_SECONDS,
        "protocol": {"enum": list(PROTOCOL_CHOICES), "message": _ITS + "unknown protocol {value!r}; use " + _PROTOCOLS},
        "enabled_tools": {**_PATTERNS, "type": ["array", "null"], "message": _ITS + "{key} must be a list of names"},
        "disabled_tools": {**_PATTERNS, "message": _ITS + "{key} must be a list of names"},
        "allowed_tools": {**_PATTERNS, "message": _ITS + "{key} must be a list of names"},
        "max_concurrency": {
            "type": ["integer", "null"],
            "minimum": 1,
            "message": _ITS + "max_concurrency must be a whole number of calls, 1 or more, not {value!r}",
        },
    },
    "allOf": [
        {
            "if": {"properties": {"transport": {"const": "stdio"}}},
            "then": {
                "properties": {
                    "command": {"type": "string", "minLength": 1, "message": _ITS + "a stdio server needs a command"}
                }
            },
            "else": {
                "properties": {
                    "url": {
                        "type": "string",
                        "minLength": 1,
                        "message": _ITS + "an {root[transport]} server needs a url",
                    }
                }
            },
        },
        {
            "if": {"properties": {"transport": {"const": "sse"}}},
            "then": {
                "properties": {
                    "protocol": {
                        "not": {"enum": list(MODERN_PROTOCOL_VERSIONS)},
                        "message": _ITS + "protocol {value} has no legacy SSE transport; use http or auto",
                    }
                }
            },
        },
    ],
}


# -- a quick yes ---------------------------------------------------------------------------
# Importing jsonschema can take seconds (its format checkers build parsers as they load), and
# adding a server from Python should not wait for it. A config these pass is one the schemas
# pass too (tests/test_config.py checks it over many configs); anything else, the schema
# decides and words the error.

_NAME_MATCH = re.compile(_NAME_PATTERN).match


def plain_name(name: Any) -> bool:
    """True only for a name SERVER_NAME passes."""
    return isinstance(name, str) and _NAME_MATCH(name) is not None


def _names(patterns: Any) -> bool:
    return type(patterns) is list and all(type(p) is str and p for p in patterns)


def plainly_valid(fields: dict[str, Any]) -> bool:
    """True only for ServerConfig fields SERVER_CONFIG passes."""
    transport, protocol = fields["transport"], fields["protocol"]
    needed = fields["command"] if transport == "stdio" else fields["url"]
    return (
        plain_name(fields["name"])
        and transport in TRANSPORTS
        and protocol in PROTOCOL_CHOICES
        and isinstance(needed, str)
        and needed != ""
        and not (transport == "sse" and protocol in MODERN_PROTOCOL_VERSIONS)
        and all(t is None or is_seconds(t) for t in (fields["startup_timeout"], fields["request_timeout"]))
        and (fields["enabled_tools"] is None or _names(fields["enabled_tools"]))
        and _names(fields["disabled_tools"])
        and _names(fields.get("allowed_tools", []))
        and (
            fields["max_concurrency"] is None
            or (type(fields["max_concurrency"]) is int and fields["max_concurrency"] > 0)
        )
    )
