"""The grants no person takes part in. ``client_credentials`` (RFC 6749 4.4, the MCP
client-credentials extension): the client authenticates as itself with its secret
(``client_secret_basic``, else ``client_secret_post``, as the authorization server lists
them) or with a JWT signed by its private key (``private_key_jwt``, assertion.py).

What the client authenticates with is taken from the settings for each request and never
kept in the token store; errors name the grant and the step, never a secret or a key.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import AuthError
from .assertion import client_assertion, key_algorithm, load_key
from .discovery import Discovery
from .server import Registration, Signer
from .settings import OAuthSettings

__all__ = ["machine_client"]


def machine_client(server: str, settings: OAuthSettings, discovery: Discovery) -> tuple[Registration, Signer | None]:
    """The client as it authenticates for client_credentials, and for private_key_jwt what
    signs its assertions."""
    what = f"server {server!r}: client_credentials"
    if not settings.client_id:
        raise AuthError(f"{what} needs the client's id (--client-id, or oauth.clientId in the config)")
    meta = discovery.metadata
    supported = meta.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    if settings.private_key or settings.private_key_file:
        pem, where = _key_text(what, settings)
        key = load_key(pem, where)
        alg = key_algorithm(key, settings.signing_alg, meta.get("token_endpoint_auth_signing_alg_values_supported"),
                            where)  # fmt: skip
        client_id = settings.client_id

        def sign(audience: str) -> str:
            return client_assertion(client_id, key, alg, audience)

        return Registration(client_id, None, "private_key_jwt"), sign
    if settings.client_secret:
        method = "client_secret_basic" if "client_secret_basic" in supported else "client_secret_post"
        return Registration(settings.client_id, settings.client_secret, method), None
    raise AuthError(
        f"{what} needs the client's secret (--client-secret-env VAR) or its private key "
        "(--private-key-file PATH, --private-key-env VAR)"
    )


def _key_text(what: str, settings: OAuthSettings) -> tuple[str, str]:
    """The PEM text of the key, and how an error names it (its file, never its content)."""
    if settings.private_key:
        return settings.private_key, f"{what}: the private key"
    path = Path(settings.private_key_file or "").expanduser()
    try:
        return path.read_text(encoding="utf-8"), f"{what}: {path}"
    except OSError as e:
        raise AuthError(f"{what}: cannot read the private key file {path} ({e.strerror})") from None
