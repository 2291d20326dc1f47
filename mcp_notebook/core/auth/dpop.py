"""DPoP (RFC 9449): tokens bound to a key of this client, so that a token that leaks is of
no use without the key. Used when the authorization server offers it
(``dpop_signing_alg_values_supported`` lists ES256): every token request and every request
to the MCP server carries a fresh proof (a JWT signed by the key, naming the method, the
URL, the time, a random id and, with a token, the token's hash), and the token goes as
``Authorization: DPoP …``, never as a bearer token. A server that wants a nonce in the
proofs says so (``use_dpop_nonce`` and a ``DPoP-Nonce`` header): it is kept per origin and
the request goes once more.

One P-256 key per server URL and authorization server, kept with the tokens in the token
store (the keyring, else the private file): a token bound to it is useless without it.
Signing is joserfc's, imported on first use.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = ["ALGORITHM", "DPoP", "offered"]

ALGORITHM = "ES256"


def offered(metadata: dict[str, Any]) -> bool:
    """Whether the authorization server takes DPoP proofs this client can make."""
    algorithms = metadata.get("dpop_signing_alg_values_supported")
    return isinstance(algorithms, list) and ALGORITHM in algorithms


class DPoP:
    """A key and the nonces servers asked for; ``proof`` makes one request's proof."""

    def __init__(self, key: Any = None) -> None:
        from joserfc.jwk import ECKey

        self.key = key if key is not None else ECKey.generate_key("P-256")
        self.nonces: dict[str, str] = {}  # by origin

    def __repr__(self) -> str:
        return "<DPoP key ***>"

    @classmethod
    def from_json(cls, data: Any) -> DPoP | None:
        """The key kept in the token store (a private JWK), or None if it is not one."""
        from joserfc.jwk import ECKey

        try:
            return cls(ECKey.import_key(data))
        except Exception:  # a damaged entry: a new key, and a new login for its tokens
            return None

    def to_json(self) -> dict[str, Any]:
        return dict(self.key.as_dict(private=True))

    def remember(self, url: str, nonce: str) -> None:
        self.nonces[_origin(url)] = nonce

    def proof(self, method: str, url: str, token: str | None = None) -> str:
        from joserfc import jwt

        claims: dict[str, Any] = {"htm": method, "htu": _target(url), "iat": int(time.time()),
                                  "jti": secrets.token_urlsafe(16)}  # fmt: skip
        if token is not None:
            digest = hashlib.sha256(token.encode()).digest()
            claims["ath"] = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        nonce = self.nonces.get(_origin(url))
        if nonce is not None:
            claims["nonce"] = nonce
        header = {"typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.key.as_dict(private=False)}
        return str(jwt.encode(header, claims, self.key, algorithms=[ALGORITHM]))


def _target(url: str) -> str:
    """``htu``: the URL without its query and fragment (RFC 9449 4.2), nor a user:password."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, _host(parts.netloc), parts.path, "", ""))


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{_host(parts.netloc)}"


def _host(netloc: str) -> str:
    return netloc.rpartition("@")[2]
