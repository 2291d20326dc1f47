"""A client's signed JWT: ``private_key_jwt`` client authentication at a token endpoint
(RFC 7523 section 2.2, as the MCP client-credentials extension uses it).

Signing is joserfc's (imported on first use): a key is never parsed or signed here by hand.
The key is a PEM private key (PKCS#8, or a traditional RSA/EC one), as text; what it signs
with follows its type (P-256 → ES256, P-384 → ES384, P-521 → ES512, RSA → RS256, Ed25519 →
EdDSA) unless one is given, and must be one the authorization server lists when it lists
any. Nothing here shows the key: errors name only what is wrong with it.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from ...errors import AuthError

__all__ = ["ASSERTION_TYPE", "client_assertion", "key_algorithm", "load_key"]

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
LIFETIME = 300  # seconds an assertion is valid (it is made for one request)
_BY_CURVE = {"P-256": "ES256", "P-384": "ES384", "P-521": "ES512", "Ed25519": "EdDSA"}


def load_key(pem: str, where: str) -> Any:
    """A private key from PEM text; ``where`` names it in an error (never its content)."""
    from joserfc.jwk import import_key

    data = pem.encode() if isinstance(pem, str) else pem
    key = None
    # Each asymmetric type asked for by name: left to guess, any text would be a symmetric key.
    for kind in ("EC", "RSA", "OKP"):
        try:
            key = import_key(data, kind)
            break
        except Exception:  # joserfc and cryptography raise several types for what is not this kind
            continue
    if key is None:
        raise AuthError(f"{where}: not a PEM private key (EC, RSA or Ed25519); give a PKCS#8 PEM file")
    if not key.is_private:
        raise AuthError(f"{where}: a public key; private_key_jwt needs the private key")
    return key


def key_algorithm(key: Any, wanted: str | None, supported: object, where: str) -> str:
    """The JWS algorithm to sign with: ``wanted``, else the key's usual one; refused when the
    authorization server lists algorithms and this is not one of them."""
    alg = wanted or (_BY_CURVE.get(key.get("crv", "")) if key.key_type in ("EC", "OKP") else "RS256")
    if not alg:
        raise AuthError(f"{where}: a {key.key_type} key of a curve this client cannot sign with")
    if isinstance(supported, list) and supported and alg not in supported:
        raise AuthError(
            f"{where}: the authorization server takes {', '.join(map(str, supported))} for private_key_jwt, "
            f"not {alg}; give a key (or signing algorithm) it takes"
        )
    return alg


def client_assertion(client_id: str, key: Any, alg: str, audience: str) -> str:
    """A fresh assertion for one token request: ``iss`` and ``sub`` the client id, ``aud``
    the authorization server's issuer, a 5-minute life and a random ``jti``."""
    from joserfc import jwt

    now = int(time.time())
    claims = {"iss": client_id, "sub": client_id, "aud": audience, "iat": now, "exp": now + LIFETIME,
              "jti": secrets.token_urlsafe(16)}  # fmt: skip
    return str(jwt.encode({"alg": alg, "typ": "JWT"}, claims, key, algorithms=[alg]))
