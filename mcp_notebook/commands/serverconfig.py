"""A server's config as ``%mcp add`` reads it from its words: a command after ``--`` (a
stdio server) or a URL (a remote one), with the options ``add``'s help lists (servers.py),
secrets only from environment variables. The command line reads the server given on its own
line with the same words (cli/source.py).
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from ..core.auth.settings import GRANTS
from ..core.config.servers import ServerConfig
from ..errors import ArgumentError, ConfigError
from .base import Context
from .options import protocol_option, save_option, tools_lists, tools_options
from .parsing import Parser, expand_text, key_value_option, seconds

# oauth settings given as an environment variable's name (--NAME-env VAR), never as a value.
SECRET_SETTINGS = ("client_secret", "private_key", "assertion", "id_token", "idp_client_secret")

__all__ = ["SECRET_SETTINGS", "server_config"]


def server_config(ctx: Context, tokens: list[str]) -> tuple[ServerConfig, str | None, dict[str, str]]:
    """A server as ``%mcp add`` reads it (its words after ``add``): its config, the scope to
    save it in (None: not saved) and which of its values came from environment variables
    (saved as references to them)."""
    if "--" in tokens:
        at = tokens.index("--")
        head, command_line = tokens[:at], tokens[at + 1 :]
        if not command_line:
            raise ArgumentError("%mcp add: nothing after --; give the server's command")
        parser = Parser("add")
        parser.add_argument("name")
        parser.add_argument("--env", action="append", metavar="K=V")
        parser.add_argument("--cwd")
        parser.add_argument("--timeout", type=seconds)
        protocol_option(parser)
        tools_options(parser)
        save_option(parser)
        opts = parser.parse(head)
        env = key_value_option(opts.env, "--env")
        command_line = [expand_text(word, ctx.names) for word in command_line]
        config = _config(
            opts.name,
            command=command_line[0],
            args=command_line[1:],
            env=env,
            cwd=opts.cwd,
            startup_timeout=opts.timeout,
            protocol=opts.protocol,
            source=opts.save or "kernel",
            **tools_lists(opts),
        )
        return config, opts.save, {}
    parser = Parser("add")
    parser.add_argument("name")
    parser.add_argument("url")
    parser.add_argument("--transport", choices=["http", "sse"])
    parser.add_argument("--header", action="append", metavar="K=V")
    parser.add_argument("--bearer-env", metavar="VAR")
    parser.add_argument("--client-id")
    parser.add_argument("--client-metadata-url")
    parser.add_argument("--scopes")
    parser.add_argument("--redirect-port", type=int)
    parser.add_argument("--grant", choices=GRANTS, metavar="GRANT")
    for setting in SECRET_SETTINGS:
        parser.add_argument(f"--{setting.replace('_', '-')}-env", metavar="VAR")
    for option in ("--private-key-file", "--assertion-file", "--id-token-file"):
        parser.add_argument(option, metavar="PATH")
    parser.add_argument("--signing-alg", metavar="ALG")
    parser.add_argument("--idp-token-endpoint", metavar="URL")
    parser.add_argument("--idp-client-id", metavar="ID")
    parser.add_argument("--timeout", type=seconds)
    protocol_option(parser)
    tools_options(parser)
    save_option(parser)
    opts = parser.parse(tokens)
    opts.url = expand_text(opts.url, ctx.names)  # $url and {expr} work here too
    try:
        urlsplit(opts.url).port  # noqa: B018 (a malformed address fails here, in one line)
    except ValueError as e:
        raise ArgumentError(f"%mcp add: {opts.url!r} is not a valid URL ({e})") from None
    if "://" not in opts.url:
        raise ArgumentError(
            f"%mcp add: {opts.url!r} is not a URL; for a local server put its command after --: "
            f"%mcp add {opts.name} -- {opts.url}"
        )
    headers = key_value_option(opts.header, "--header")
    # How values from environment variables are saved: as references to them.
    refs: dict[str, str] = {}
    if opts.bearer_env:
        token = os.environ.get(opts.bearer_env)
        if not token:
            raise ArgumentError(f"--bearer-env {opts.bearer_env}: that environment variable is not set")
        headers["Authorization"] = f"Bearer {token}"
        refs["headers.Authorization"] = f"Bearer ${{{opts.bearer_env}}}"
    oauth: dict[str, Any] = {}
    for setting in SECRET_SETTINGS:  # each from its environment variable, saved as a reference to it
        variable = getattr(opts, f"{setting}_env")
        if variable:
            value = os.environ.get(variable)
            if not value:
                raise ArgumentError(
                    f"--{setting.replace('_', '-')}-env {variable}: that environment variable is not set"
                )
            oauth[setting] = value
            refs[f"oauth.{setting}"] = f"${{{variable}}}"
    for key in ("client_id", "client_metadata_url", "scopes", "redirect_port", "grant", "private_key_file",
                "signing_alg", "assertion_file", "id_token_file", "idp_token_endpoint", "idp_client_id"):  # fmt: skip
        if getattr(opts, key) is not None:
            oauth[key] = getattr(opts, key)
    if not opts.grant:  # what was given says which grant, where only one takes it
        if oauth.keys() & {"assertion", "assertion_file"}:
            oauth["grant"] = "jwt_bearer"
        elif oauth.keys() & {"id_token", "id_token_file", "idp_token_endpoint"}:
            oauth["grant"] = "id_jag"
        elif oauth.keys() & {"private_key", "private_key_file"}:
            oauth["grant"] = "client_credentials"  # a key is for a client that logs in as itself
    config = _config(
        opts.name,
        transport=opts.transport or "auto",
        url=opts.url,
        headers=headers,
        oauth=oauth,
        startup_timeout=opts.timeout,
        protocol=opts.protocol,
        source=opts.save or "kernel",
        **tools_lists(opts),
    )
    return config, opts.save, refs


def _config(name: str, **fields: Any) -> ServerConfig:
    try:
        return ServerConfig(name=name, **fields)
    except ConfigError as e:
        raise ArgumentError(str(e)) from None
