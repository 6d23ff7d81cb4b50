"""Verifies our ES256 JWTs against the published JWKS with the `cryptography` package (an independent implementation)."""
import base64
import json

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def _b64(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def verify(token, jwks):
    """Returns the claims if the signature verifies under the key named by `kid`; raises otherwise."""
    header_b64, payload_b64, sig_b64 = token.split(".")
    header = json.loads(_b64(header_b64))
    key = next(k for k in jwks["keys"] if k["kid"] == header["kid"])
    assert header["alg"] == "ES256" and key["kty"] == "EC" and key["crv"] == "P-256"
    public = ec.EllipticCurvePublicNumbers(int.from_bytes(_b64(key["x"]), "big"), int.from_bytes(_b64(key["y"]), "big"),
                                           ec.SECP256R1()).public_key()
    raw = _b64(sig_b64)
    assert len(raw) == 64
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{header_b64}.{payload_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    return json.loads(_b64(payload_b64))


__all__ = ["verify", "InvalidSignature"]
