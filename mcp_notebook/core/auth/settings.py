"""How this client identifies itself to an authorization server (``OAuthSettings``), from
``%mcp add``'s options or a config file's ``oauth`` object."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GRANTS", "OAuthSettings"]

# authorization_code: a person logs in. The others need nobody: client_credentials (the
# client as itself), jwt_bearer (a workload's JWT from its platform: workload identity
# federation), id_jag (an enterprise identity provider's ID token exchanged for an ID-JAG,
# then that for a token: SEP-990, enterprise-managed authorization).
GRANTS = ("authorization_code", "client_credentials", "jwt_bearer", "id_jag")


@dataclass
class OAuthSettings:
    """How this client identifies itself. ``client_id``/``client_secret``: a pre-registered
    client; ``client_metadata_url``: a Client ID Metadata Document (an https URL);
    ``scopes``: ask for these instead of what the server suggests; ``redirect_port``: a
    fixed loopback port for servers that need an exact redirect URI (0: any free port).
    ``grant``: ``authorization_code`` (a person logs in) or one of ``GRANTS`` that need
    nobody: the client authenticates with ``client_secret`` or, for private_key_jwt, a PEM
    ``private_key`` or ``private_key_file`` (signing with ``signing_alg`` if given);
    ``jwt_bearer`` sends ``assertion`` (or the content of ``assertion_file``); ``id_jag``
    exchanges ``id_token`` (or ``id_token_file``) at ``idp_token_endpoint`` first."""

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
    assertion: str | None = None  # jwt_bearer: the platform's JWT, or
    assertion_file: str | None = None  # the file it is kept in (read afresh: platforms rotate it)
    id_token: str | None = None  # id_jag: the identity provider's ID token, or
    id_token_file: str | None = None  # its file
    idp_token_endpoint: str | None = None  # id_jag: where the identity provider exchanges it
    idp_client_id: str | None = None  # id_jag: this client at the identity provider
    idp_client_secret: str | None = None

    def __repr__(self) -> str:
        secret = ", client_secret=***" if self.client_secret or self.idp_client_secret else ""
        key = ", private_key=***" if self.private_key or self.private_key_file else ""
        key += ", assertion=***" if self.assertion or self.id_token else ""
        grant = f", grant={self.grant!r}" if self.grant != "authorization_code" else ""
        return f"OAuthSettings(client_id={self.client_id!r}{secret}{key}{grant}, scopes={self.scopes!r})"
