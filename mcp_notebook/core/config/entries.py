"""A server config written back as a config-file entry: secrets as ``${VAR}`` references,
never their values.

What looks secret is decided by the same rules that hide values in reprs (redact.py,
detect.py): env vars, headers, option arguments and URL query parameters with
secret-looking names, an OAuth client secret, a ``Bearer …`` value; and secrets found by
their value wherever they are (a URL's password or path key, a token inside a JSON env
value, ``ghp_…``), each replaced in place by its own reference.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..safety.detect import is_secret_setting, replace_secrets
from ..safety.redact import replace_secret_args
from .servers import REFERENCE, ServerConfig

_OAUTH_NAMES = {"client_id": "clientId", "client_secret": "clientSecret", "client_metadata_url": "clientMetadataUrl",
                "scopes": "scopes", "redirect_port": "redirectPort", "grant": "grant", "private_key": "privateKey",
                "private_key_file": "privateKeyFile", "signing_alg": "signingAlg", "assertion": "assertion",
                "assertion_file": "assertionFile", "id_token": "idToken", "id_token_file": "idTokenFile",
                "idp_token_endpoint": "idpTokenEndpoint", "idp_client_id": "idpClientId",
                "idp_client_secret": "idpClientSecret"}  # fmt: skip


def variable_name(*parts: str) -> str:
    """``REMOTE_X_API_KEY`` from ("remote", "X-Api-Key"): an environment variable's name."""
    return re.sub(r"[^A-Za-z0-9]+", "_", "_".join(parts)).strip("_").upper()


def numbered_name(base: str, held: Mapping[str, str], value: str) -> str:
    """The first of ``base``, ``base_2``, ``base_3``… that ``held`` (variable → the value it
    stands for) has not given to another value: another secret under the same name gets a
    name of its own (saved files and exported scripts alike)."""
    name, n = base, 2
    while held.get(name, value) != value:
        name, n = f"{base}_{n}", n + 1
    return name


class Variable(NamedTuple):
    """A variable a saved secret now refers to: its ``name``, and ``where`` the secret was
    (``env API_KEY``, ``argument 3``, ``header X-Api-Key``), for the line that asks the
    person to set it."""

    name: str
    where: str


class _Secrets:
    """Replaces secret values by references, remembering which variables they need."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}  # variable -> the value it stands for (in memory only)
        self.where: dict[str, str] = {}

    def ref(self, variable: str, value: str, where: str) -> str:
        if REFERENCE.search(value):
            return value  # already a reference (or holds one): as written
        for known, held in self.values.items():
            if held == value:
                return f"${{{known}}}"
        variable = numbered_name(variable, self.values, value)
        self.values[variable] = value
        self.where[variable] = where
        return f"${{{variable}}}"

    def credential(self, variable: str, value: str, where: str) -> str:
        """``Bearer abc`` keeps its scheme: ``Bearer ${VAR}``."""
        scheme, space, token = value.partition(" ")
        if space and scheme.lower() in ("bearer", "basic", "token") and token:
            return f"{scheme} {self.ref(variable, token, where)}"
        return self.ref(variable, value, where)

    def within(self, text: str, server: str, where: str) -> str:
        """``text`` with each secret found in it by its value (detect.py) as a reference."""
        return replace_secrets(text, lambda hint, value: self.ref(variable_name(server, hint), value, where))

    def missing(self) -> list[Variable]:
        """Variables that do not hold their value in this environment: set them before loading."""
        return [Variable(name, self.where[name]) for name in sorted(self.values)
                if os.environ.get(name) != self.values[name]]  # fmt: skip


def config_entry(config: ServerConfig, refs: Mapping[str, str] | None = None) -> tuple[dict[str, Any], list[Variable]]:
    """The entry for ``config`` in Claude Code's ``.mcp.json`` format, and the variables its
    secrets now refer to that are not set to them here.

    ``refs`` gives fields as they were given, by dotted name (``{"headers.Authorization":
    "Bearer ${TOKEN}", "oauth.client_secret": "${SECRET}", "url": …, "command": …, "args.2": …}``): a value
    that came from an environment variable is saved as that variable.
    """
    refs = dict(refs or {})
    secrets = _Secrets()
    server = config.name
    entry: dict[str, Any] = {}
    if config.transport == "stdio":
        entry["type"] = "stdio"
        entry["command"] = refs.get("command") or config.command  # a ${VAR} in it as written
        if config.args:
            # An argument as written where it holds a ${VAR}; any literal secret becomes one too.
            entry["args"] = _args([refs.get(f"args.{i}") or a for i, a in enumerate(config.args)], server, secrets)
        if config.env:
            # A secret env var refers to the variable of its own name: the server reads that.
            entry["env"] = {
                k: secrets.ref(variable_name(k), v, f"env {k}")
                if f"env.{k}" not in refs and is_secret_setting(k)
                else secrets.within(refs.get(f"env.{k}") or v, server, f"env {k}")
                for k, v in config.env.items()
            }
        if config.cwd:
            entry["cwd"] = config.cwd
    else:
        # Claude Code reads an entry without a type as stdio: always write one ("auto", not
        # yet resolved by a connection, is written as Streamable HTTP).
        entry["type"] = config.transport if config.transport in ("http", "sse") else "http"
        entry["url"] = secrets.within(refs.get("url") or str(config.url), server, "the URL")
        if config.headers:
            entry["headers"] = {
                k: secrets.credential(_header_variable(server, k), v, f"header {k}")
                if f"headers.{k}" not in refs and _secret_header(k, v)
                else secrets.within(refs.get(f"headers.{k}") or v, server, f"header {k}")
                for k, v in config.headers.items()
            }
        if config.oauth:
            oauth: dict[str, Any] = {}
            for key, value in config.oauth.items():
                name = _OAUTH_NAMES.get(key, key)
                if f"oauth.{key}" in refs:
                    oauth[name] = refs[f"oauth.{key}"]
                elif key in ("client_secret", "private_key", "assertion", "id_token", "idp_client_secret"):
                    oauth[name] = secrets.ref(variable_name(server, key), str(value), f"oauth {name}")
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
    if config.allowed_tools:
        entry["alwaysAllow"] = list(config.allowed_tools)
    return entry, secrets.missing()


def _header_variable(server: str, header: str) -> str:
    # Authorization: Bearer ${REMOTE_TOKEN}, not ${REMOTE_AUTHORIZATION}.
    return variable_name(server, "token" if header.lower() == "authorization" else header)


def _secret_header(name: str, value: str) -> bool:
    return is_secret_setting(name) or value.lower().startswith("bearer ")


def _args(args: list[str], server: str, secrets: _Secrets) -> list[str]:
    """Secrets as redact_args finds them, saved as references: ``--token X``, ``TOKEN=X``,
    ``Bearer X``, and any found by its value (detect.py)."""

    def reference(name: str, value: str, whole: bool) -> str:
        save = secrets.credential if whole else secrets.ref
        return save(variable_name(server, name), value, f"option {name}")

    named = replace_secret_args(args, reference)
    return [secrets.within(arg, server, f"argument {at}") for at, arg in enumerate(named, 1)]


__all__ = ["Variable", "config_entry", "numbered_name", "variable_name"]
