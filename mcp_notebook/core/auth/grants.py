"""The grants no person takes part in, for scheduled notebooks and CI:

- ``client_credentials`` (RFC 6749 4.4, the MCP client-credentials extension): a token for
  the client itself;
- ``jwt_bearer`` (RFC 7523 2.1; workload identity federation): the JWT a platform gives a
  workload (Kubernetes, GitHub Actions, a cloud runtime) is the grant;
- ``id_jag`` (SEP-990, enterprise-managed authorization): the enterprise identity provider's
  ID token is exchanged there for an ID-JAG (RFC 8693 token exchange), which is then the
  grant at the MCP server's authorization server (RFC 7523 again).

The client authenticates with its secret (``client_secret_basic``, else
``client_secret_post``, as the authorization server lists them), a JWT signed by its private
key (``private_key_jwt``, assertion.py), or not at all where the grant itself is the proof.
What it authenticates with is read from the settings for each request and never kept in the
token store; errors name the grant and the step, never a secret, a key or a token.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from ...errors import AuthError
from .assertion import client_assertion, key_algorithm, load_key
from .discovery import Discovery, require_safe
from .dpop import DPoP
from .server import Registration, Signer, token_request
from .settings import OAuthSettings

__all__ = ["ID_JAG", "ID_TOKEN", "JWT_BEARER", "TOKEN_EXCHANGE", "machine_client", "machine_token"]

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"


async def machine_token(
    http: httpx.AsyncClient,
    server: str,
    settings: OAuthSettings,
    discovery: Discovery,
    scopes: str | None,
    dpop: DPoP | None = None,
) -> dict[str, Any]:
    """The token endpoint's answer for ``settings.grant``."""
    client, sign = machine_client(server, settings, discovery)
    form = {"resource": discovery.resource}
    if scopes:
        form["scope"] = scopes
    grant = settings.grant
    if grant == "client_credentials":
        form["grant_type"] = "client_credentials"
    elif grant == "jwt_bearer":
        text = _text(server, "jwt_bearer", "the platform's JWT", settings.assertion, settings.assertion_file,
                     "--assertion-file PATH or --assertion-env VAR")  # fmt: skip
        form.update(grant_type=JWT_BEARER, assertion=text)
    elif grant == "id_jag":
        form.update(grant_type=JWT_BEARER, assertion=await _id_jag(http, server, settings, discovery))
    else:
        raise AuthError(
            f"server {server!r}: unknown grant {grant!r}; use one of client_credentials, jwt_bearer, id_jag"
        )
    step = f"the {grant} token request"
    if grant == "id_jag":
        step = "id_jag, step 2 (the ID-JAG for a token at the authorization server)"
    return await token_request(http, server, discovery, client, form, sign, step=step, dpop=dpop)


async def _id_jag(http: httpx.AsyncClient, server: str, settings: OAuthSettings, discovery: Discovery) -> str:
    """Step 1 of SEP-990: the identity provider's ID token exchanged there for an ID-JAG
    whose audience is the authorization server and whose resource is the MCP server."""
    what = f"server {server!r}: id_jag"
    if not settings.idp_token_endpoint:
        raise AuthError(f"{what} needs the identity provider's token endpoint (--idp-token-endpoint URL)")
    require_safe(server, "identity provider's token endpoint", settings.idp_token_endpoint)
    id_token = _text(server, "id_jag", "the ID token", settings.id_token, settings.id_token_file,
                     "--id-token-file PATH or --id-token-env VAR")  # fmt: skip
    idp = Registration(
        settings.idp_client_id or "",
        settings.idp_client_secret,
        "client_secret_post" if settings.idp_client_secret else "none",
    )
    form = {"grant_type": TOKEN_EXCHANGE, "subject_token": id_token, "subject_token_type": ID_TOKEN,
            "requested_token_type": ID_JAG, "audience": discovery.issuer, "resource": discovery.resource}  # fmt: skip
    step = "id_jag, step 1 (the token exchange at the identity provider)"
    answer = await token_request(http, server, discovery, idp, form, endpoint=settings.idp_token_endpoint, step=step)
    jag = answer.get("access_token")
    if answer.get("issued_token_type") != ID_JAG or not isinstance(jag, str) or not jag:
        raise AuthError(f"{what}: the identity provider's answer to the token exchange holds no ID-JAG")
    return jag


def machine_client(server: str, settings: OAuthSettings, discovery: Discovery) -> tuple[Registration, Signer | None]:
    """The client as it authenticates at the token endpoint, and for private_key_jwt what
    signs its assertions. client_credentials needs a secret or a key; the other grants are
    their own proof and authenticate the client only when given the means."""
    what = f"server {server!r}: {settings.grant}"
    if settings.grant == "client_credentials" and not settings.client_id:
        raise AuthError(f"{what} needs the client's id (--client-id, or oauth.clientId in the config)")
    client_id = settings.client_id or ""
    meta = discovery.metadata
    supported = meta.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    if settings.private_key or settings.private_key_file:
        if not client_id:
            raise AuthError(f"{what}: private_key_jwt needs the client's id (--client-id)")
        pem = _text(server, settings.grant, "the private key", settings.private_key, settings.private_key_file, "")
        where = f"{what}: " + (str(settings.private_key_file) if settings.private_key_file else "the private key")
        key = load_key(pem, where)
        alg = key_algorithm(key, settings.signing_alg, meta.get("token_endpoint_auth_signing_alg_values_supported"),
                            where)  # fmt: skip

        def sign(audience: str) -> str:
            return client_assertion(client_id, key, alg, audience)

        return Registration(client_id, None, "private_key_jwt"), sign
    if settings.client_secret:
        method = "client_secret_basic" if "client_secret_basic" in supported else "client_secret_post"
        return Registration(client_id, settings.client_secret, method), None
    if settings.grant == "client_credentials":
        raise AuthError(
            f"{what} needs the client's secret (--client-secret-env VAR) or its private key "
            "(--private-key-file PATH, --private-key-env VAR)"
        )
    return Registration(client_id, None, "none"), None


def _text(server: str, grant: str, what: str, value: str | None, path: str | None, how: str) -> str:
    """A credential given as text or as a file (read now: a platform may have rotated it)."""
    if value:
        return value.strip()
    if not path:
        raise AuthError(f"server {server!r}: {grant} needs {what} ({how})")
    file = Path(path).expanduser()
    try:
        text = file.read_text(encoding="utf-8").strip()
    except OSError as e:
        raise AuthError(f"server {server!r}: {grant}: cannot read {what} from {file} ({e.strerror})") from None
    if not text:
        raise AuthError(f"server {server!r}: {grant}: {file} is empty; it should hold {what}")
    return text
