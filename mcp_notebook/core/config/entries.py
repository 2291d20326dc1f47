"""A server config written back as a config-file entry: secrets as ``${VAR}`` references,
never their values.

What looks secret is decided by the same rules that hide values in reprs (redact.py):
env vars, headers, option arguments and URL query parameters with secret-looking names, a
URL's password, an OAuth client secret, a ``Bearer …`` value.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from ..safety.redact import is_secret_name, replace_secret_args
from .servers import ServerConfig

_REFERENCE = re.compile(r"\$\{[^}]*\}")
_OAUTH_NAMES = {"client_id": "clientId", "client_secret": "clientSecret", "client_metadata_url": "clientMetadataUrl",
                "scopes": "scopes", "redirect_port": "redirectPort", "grant": "grant", "private_key": "privateKey",
                "private_key_file": "privateKeyFile", "signing_alg": "signingAlg", "assertion": "assertion",
                "assertion_file": "assertionFile", "id_token": "idToken", "id_token_file": "idTokenFile",
                "idp_token_endpoint": "idpTokenEndpoint", "idp_client_id": "idpClientId",
                "idp_client_secret": "idpClientSecret"}  # fmt: skip


def variable_name(*parts: str) -> str:
    """``REMOTE_X_API_KEY`` from ("remote", "X-Api-Key"): an environment variable's name."""
    return re.sub(r"[^A-Za-z0-9]+", "_", "_".join(parts)).strip("_").upper()


class _Secrets:
    """Replaces secret values by references, remembering which variables they need."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}  # variable -> the value it stands for (in memory only)

    def ref(self, variable: str, value: str) -> str:
        if _REFERENCE.search(value):
            return value  # already a reference (or holds one): as written
        self.values.setdefault(variable, value)
        return f"${{{variable}}}"

    def credential(self, variable: str, value: str) -> str:
        """``Bearer abc`` keeps its scheme: ``Bearer ${VAR}``."""
        scheme, space, token = value.partition(" ")
        if space and scheme.lower() in ("bearer", "basic", "token") and token:
            return f"{scheme} {self.ref(variable, token)}"
        return self.ref(variable, value)

    def missing(self) -> list[str]:
        """Variables that do not hold their value in this environment: set them before loading."""
        return sorted(name for name, value in self.values.items() if os.environ.get(name) != value)


def config_entry(config: ServerConfig, refs: Mapping[str, str] | None = None) -> tuple[dict[str, Any], list[str]]:
    """The entry for ``config`` in Claude Code's ``.mcp.json`` format, and the variables its
    secrets now refer to that are not set to them here.

    ``refs`` gives fields as they were given, by dotted name (``{"headers.Authorization":
    "Bearer ${TOKEN}", "oauth.client_secret": "${SECRET}", "url": …, "args.2": …}``): a value
    that came from an environment variable is saved as that variable.
    """
    refs = dict(refs or {})
    secrets = _Secrets()
    server = config.name
    entry: dict[str, Any] = {}
    if config.transport == "stdio":
        entry["type"] = "stdio"
        entry["command"] = config.command
        if config.args:
            args = _args(config.args, server, secrets)
            entry["args"] = [refs.get(f"args.{i}") or arg for i, arg in enumerate(args)]
        if config.env:
            # A secret env var refers to the variable of its own name: the server reads that.
            entry["env"] = {
                k: refs.get(f"env.{k}") or (secrets.ref(variable_name(k), v) if is_secret_name(k) else v)
                for k, v in config.env.items()
            }
        if config.cwd:
            entry["cwd"] = config.cwd
    else:
        # Claude Code reads an entry without a type as stdio: always write one ("auto", not
        # yet resolved by a connection, is written as Streamable HTTP).
        entry["type"] = config.transport if config.transport in ("http", "sse") else "http"
        entry["url"] = refs.get("url") or _url(str(config.url), server, secrets)
        if config.headers:
            entry["headers"] = {
                k: refs.get(f"headers.{k}")
                or (secrets.credential(_header_variable(server, k), v) if _secret_header(k, v) else v)
                for k, v in config.headers.items()
            }
        if config.oauth:
            oauth: dict[str, Any] = {}
            for key, value in config.oauth.items():
                name = _OAUTH_NAMES.get(key, key)
                if f"oauth.{key}" in refs:
                    oauth[name] = refs[f"oauth.{key}"]
                elif key in ("client_secret", "private_key", "assertion", "id_token", "idp_client_secret"):
                    oauth[name] = secrets.ref(variable_name(server, key), str(value))
                else:
                    oauth[name] = value
            entry["oauth"] = oauth
    if config.disabled:
        entry["disabled"] = True
    if config.protocol != "auto":
        entry["protocol"] = config.protocol  # ours: other clients ignore it
    if config.startup_timeout is not None:
        entry["startup_timeout_sec"] = config.startup_timeout
    if config.request_timeout is not None:
        if config.request_timeout >= 1:
            entry["timeout"] = round(config.request_timeout * 1000)  # Claude Code's key, in milliseconds
        else:
            entry["tool_timeout_sec"] = config.request_timeout
    if config.enabled_tools is not None:
        entry["enabledTools"] = list(config.enabled_tools)
    if config.disabled_tools:
        entry["disabledTools"] = list(config.disabled_tools)
    if config.max_concurrency is not None:
        entry["maxConcurrency"] = config.max_concurrency
    return entry, secrets.missing()


def _header_variable(server: str, header: str) -> str:
    # Authorization: Bearer ${REMOTE_TOKEN}, not ${REMOTE_AUTHORIZATION}.
    return variable_name(server, "token" if header.lower() == "authorization" else header)


def _secret_header(name: str, value: str) -> bool:
    return is_secret_name(name) or value.lower().startswith("bearer ")


def _args(args: list[str], server: str, secrets: _Secrets) -> list[str]:
    """Secrets as redact_args finds them, saved as references: ``--token X``, ``TOKEN=X``, ``Bearer X``."""

    def reference(name: str, value: str, whole: bool) -> str:
        save = secrets.credential if whole else secrets.ref
        return save(variable_name(server, name), value)

    return replace_secret_args(args, reference)


def _url(url: str, server: str, secrets: _Secrets) -> str:
    """A URL's password and secret-looking query values as references."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, colon, password = userinfo.partition(":")
        if colon:
            netloc = f"{user}:{secrets.ref(variable_name(server, 'password'), password)}@{host}"
    query = parts.query
    if query and any(is_secret_name(k) for k, _ in parse_qsl(query, keep_blank_values=True)):
        pieces = []
        for piece in query.split("&"):
            key, eq, value = piece.partition("=")
            if eq and is_secret_name(key):
                piece = f"{key}={secrets.ref(variable_name(server, key), value)}"
            pieces.append(piece)
        query = "&".join(pieces)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


__all__ = ["config_entry", "variable_name"]
