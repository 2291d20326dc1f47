"""How this client identifies itself to an authorization server (``OAuthSettings``), from
``%mcp add``'s options or a config file's ``oauth`` object."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GRANTS", "OAuthSettings"]

GRANTS = ("authorization_code", "client_credentials")


@dataclass
class OAuthSettings:
    """How this client identifies itself. ``client_id``/``client_secret``: a pre-registered
    client; ``client_metadata_url``: a Client ID Metadata Document (an https URL);
    ``scopes``: ask for these instead of what the server suggests; ``redirect_port``: a
    fixed loopback port for servers that need an exact redirect URI (0: any free port).
    ``grant``: ``authorization_code`` (a person logs in) or ``client_credentials`` (nobody:
    the client authenticates as itself, with ``client_secret`` or, for private_key_jwt, a
    PEM ``private_key`` or ``private_key_file``, signing with ``signing_alg`` if given)."""

    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    scopes: str | None = None
    redirect_port: int = 0
    client_name: str = "mcp-notebook"
    grant: str = "authorization_code"
    private_key: str | None = None
    private_key_file: str | None = None
    signing_alg: str | None = None

    def __repr__(self) -> str:
        secret = ", client_secret=***" if self.client_secret else ""
        key = ", private_key=***" if self.private_key or self.private_key_file else ""
        grant = f", grant={self.grant!r}" if self.grant != "authorization_code" else ""
        return f"OAuthSettings(client_id={self.client_id!r}{secret}{key}{grant}, scopes={self.scopes!r})"
