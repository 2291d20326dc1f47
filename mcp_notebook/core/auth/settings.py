"""How this client identifies itself to an authorization server (``OAuthSettings``), from
``%mcp add``'s options or a config file's ``oauth`` object."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

__all__ = ["GRANTS", "OAuthSettings", "oauth_problem"]

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

    def identity(self) -> str:
        """Who a grant with no person logs in as, for keeping its tokens apart: the client id
        and where its proof comes from (a file's path, an endpoint, or a digest of a value:
        never the value)."""
        parts = [self.client_id or "", self.assertion_file or "", self.id_token_file or "",
                 self.idp_token_endpoint or "", self.idp_client_id or ""]  # fmt: skip
        for value in (self.assertion, self.id_token):
            parts.append(hashlib.sha256(value.encode()).hexdigest()[:16] if value else "")
        return " ".join(part for part in parts if part)

    def __repr__(self) -> str:
        secret = ", client_secret=***" if self.client_secret or self.idp_client_secret else ""
        key = ", private_key=***" if self.private_key or self.private_key_file else ""
        key += ", assertion=***" if self.assertion or self.id_token else ""
        grant = f", grant={self.grant!r}" if self.grant != "authorization_code" else ""
        return f"OAuthSettings(client_id={self.client_id!r}{secret}{key}{grant}, scopes={self.scopes!r})"


def oauth_problem(oauth: dict[str, object]) -> str | None:
    """What is wrong with these settings (ServerConfig.oauth's names), in one line; None: nothing.
    Checked when a server is made, not at its first 401: a broken login is said at once."""
    known = set(OAuthSettings.__dataclass_fields__)
    unknown = sorted(set(oauth) - known)
    if unknown:
        return f"oauth: unknown setting {unknown[0]!r} (known: {', '.join(sorted(known))})"
    grant = oauth.get("grant") or "authorization_code"
    if grant not in GRANTS:
        return f"oauth: {grant!r} is not a grant; use one of {', '.join(GRANTS)}"
    has = {name for name, value in oauth.items() if value not in (None, "")}
    key = has & {"private_key", "private_key_file"}
    if key and "client_id" not in has:
        return "oauth: a private key (private_key_jwt) needs the client's id (--client-id)"
    if grant == "client_credentials":
        if "client_id" not in has:
            return "oauth: client_credentials needs the client's id (--client-id)"
        if not key and "client_secret" not in has:
            return "oauth: client_credentials needs the client's secret or its private key"
    if grant == "jwt_bearer" and not has & {"assertion", "assertion_file"}:
        return "oauth: jwt_bearer needs the platform's JWT (--assertion-file PATH or --assertion-env VAR)"
    if grant == "id_jag":
        if "idp_token_endpoint" not in has:
            return "oauth: id_jag needs the identity provider's token endpoint (--idp-token-endpoint URL)"
        if not has & {"id_token", "id_token_file"}:
            return "oauth: id_jag needs the identity provider's ID token (--id-token-file PATH or --id-token-env VAR)"
    if "idp_client_secret" in has and "idp_client_id" not in has:
        return "oauth: an identity provider's client secret needs its client id (--idp-client-id)"
    used = {
        "jwt_bearer": {"assertion", "assertion_file"},
        "id_jag": {"id_token", "id_token_file", "idp_token_endpoint", "idp_client_id", "idp_client_secret"},
    }
    for other, names in used.items():
        if other != grant and has & names:
            return f"oauth: {sorted(has & names)[0]} is for the {other} grant, not {grant}"
    if grant == "authorization_code" and key:
        return "oauth: a private key is for a login with no person (--grant client_credentials)"
    return None
