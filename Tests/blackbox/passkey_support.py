"""Passkeys driven without a browser: soft-webauthn (a software authenticator on Yubico's fido2) makes the
registrations and assertions, converted to WebAuthn Level 3's JSON forms as `PublicKeyCredential.toJSON()` writes
them. soft-webauthn sets user presence only; `VerifyingDevice` also says the user was verified, as a platform
authenticator does."""
import base64
import json
from struct import pack

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2 import cbor
from fido2.utils import sha256
from soft_webauthn import SoftWebauthnDevice


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def creation_options(options):
    """`PublicKeyCredentialCreationOptionsJSON` as soft-webauthn takes it (bytes where the JSON has base64url)."""
    public = dict(options, challenge=unb64(options["challenge"]), user=dict(options["user"], id=unb64(options["user"]["id"])))
    return {"publicKey": public}


def request_options(options):
    return {"publicKey": dict(options, challenge=unb64(options["challenge"]))}


def registration_json(credential):
    """What `toJSON()` gives for a `create()` answer."""
    response = credential["response"]
    return {"id": b64(credential["rawId"]), "rawId": b64(credential["rawId"]), "type": "public-key", "clientExtensionResults": {},
            "response": {"clientDataJSON": b64(response["clientDataJSON"]), "attestationObject": b64(response["attestationObject"])}}


def authentication_json(assertion):
    response = assertion["response"]
    return {"id": b64(assertion["rawId"]), "rawId": b64(assertion["rawId"]), "type": "public-key", "clientExtensionResults": {},
            "response": {"clientDataJSON": b64(response["clientDataJSON"]), "authenticatorData": b64(response["authenticatorData"]),
                         "signature": b64(response["signature"]), "userHandle": b64(response["userHandle"])}}


class VerifyingDevice(SoftWebauthnDevice):
    """soft-webauthn's authenticator with user verification (UV) and, when asked, a key that goes back in its counter."""

    def create(self, options, origin):
        credential = super().create(options, origin)
        attestation = cbor.decode(credential["response"]["attestationObject"])
        data = bytearray(attestation["authData"])
        data[32] |= 0x04  # UV
        attestation["authData"] = bytes(data)
        credential["response"]["attestationObject"] = cbor.encode(attestation)
        return credential

    def get(self, options, origin):
        if self.rp_id != options["publicKey"]["rpId"]:
            raise ValueError("Requested rpID does not match current credential")
        self.sign_count += 1
        client_data = json.dumps({"type": "webauthn.get", "challenge": b64(options["publicKey"]["challenge"]), "origin": origin}).encode()
        data = sha256(self.rp_id.encode("ascii")) + b"\x05" + pack(">I", self.sign_count)  # UP and UV
        signature = self.private_key.sign(data + sha256(client_data), ec.ECDSA(hashes.SHA256()))
        return {"id": b64(self.credential_id), "rawId": self.credential_id, "type": "public-key",
                "response": {"authenticatorData": data, "clientDataJSON": client_data, "signature": signature, "userHandle": self.user_handle}}
