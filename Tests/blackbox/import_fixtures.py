"""Export files in each source's own format, as its documentation and its tools write them, with hashes made by
independent implementations: Firebase's modified scrypt (hashlib's scrypt and AES-CTR, checked by PyPI's
`firebase-scrypt`), bcrypt as Auth0 and Supabase store it, PBKDF2 and Argon2id with Keycloak's parameters."""
import base64
import hashlib
import json
import os

import bcrypt
from argon2.low_level import Type, hash_secret_raw
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from firebase_scrypt import firebasescrypt

b64 = lambda raw: base64.b64encode(raw).decode()  # noqa: E731

# Firebase's own example project (firebase/scrypt's README): its parameters, one user's salt, password and hash.
FIREBASE_CONFIG = {"algorithm": "SCRYPT", "base64_signer_key": "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
                   "base64_salt_separator": "Bw==", "rounds": 8, "mem_cost": 14}
FIREBASE_EXAMPLE = {"password": "user1password", "salt": "42xEC+ixf3L2lw==",
                    "hash": "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="}
# The console's "Password hash parameters" dialog, as an operator copies it.
FIREBASE_CONSOLE_TEXT = """hash_config {
  algorithm: SCRYPT,
  base64_signer_key: %s,
  base64_salt_separator: Bw==,
  rounds: 8,
  mem_cost: 14,
}
""" % FIREBASE_CONFIG["base64_signer_key"]


def firebase_hash(password, salt):
    """Firebase's algorithm written out: scrypt(password, salt ‖ separator) keys AES-256-CTR over the signer key."""
    c = FIREBASE_CONFIG
    key = hashlib.scrypt(password.encode(), salt=salt + base64.b64decode(c["base64_salt_separator"]), n=2 ** c["mem_cost"],
                         r=c["rounds"], p=1, dklen=32, maxmem=64 * 1024 * 1024)
    encryptor = Cipher(algorithms.AES(key), modes.CTR(b"\0" * 16)).encryptor()
    hashed = b64(encryptor.update(base64.b64decode(c["base64_signer_key"])) + encryptor.finalize())
    assert firebasescrypt.verify_password(password=password, known_hash=hashed, salt=b64(salt), salt_separator=c["base64_salt_separator"],
                                          signer_key=c["base64_signer_key"], rounds=c["rounds"], mem_cost=c["mem_cost"])
    return hashed


def firebase_json_user(local_id, email, password=None, salt=None, providers=(), **extra):
    user = {"localId": local_id, "email": email, "emailVerified": True, "displayName": "Fire Base", "photoUrl": "https://example.com/p.png",
            "lastSignedInAt": "1700000000000", "createdAt": "1600000000123", "disabled": False,
            "customAttributes": json.dumps({"plan": "pro"}),
            "providerUserInfo": [{"providerId": p, "rawId": raw, "email": email, "displayName": "Fire Base"} for p, raw in providers]}
    if password:
        salt = salt or os.urandom(8)
        user.update(passwordHash=firebase_hash(password, salt), salt=b64(salt))
    return {**user, **extra}


def firebase_csv_row(user):
    """One line as `firebase auth:export --format=csv` writes it: 28 columns, no header, a trailing comma."""
    cells = [""] * 28
    cells[0:7] = [user["localId"], user["email"], "true" if user["emailVerified"] else "false", user.get("passwordHash", ""),
                  user.get("salt", ""), user["displayName"], user["photoUrl"]]
    for info in user["providerUserInfo"]:
        start = {"google.com": 7, "facebook.com": 11, "twitter.com": 15, "github.com": 19}[info["providerId"]]
        cells[start:start + 4] = [info["rawId"], info["email"], info["displayName"], ""]
    cells[23:27] = [user["createdAt"], user["lastSignedInAt"], "", "false"]
    cells[27] = '"%s"' % user["customAttributes"].replace('"', '""')
    return ",".join(cells) + ",\n"


def auth0_bcrypt(password):
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=10, prefix=b"2b")).decode()


def keycloak_pbkdf2(password, algorithm, iterations):
    salt = os.urandom(16)
    digest = {"pbkdf2-sha256": "sha256", "pbkdf2-sha512": "sha512", "pbkdf2": "sha1"}[algorithm]
    value = hashlib.pbkdf2_hmac(digest, password.encode(), salt, iterations, dklen=64)
    return {"type": "password", "createdDate": 1600000000000,
            "secretData": json.dumps({"value": b64(value), "salt": b64(salt), "additionalParameters": {}}),
            "credentialData": json.dumps({"hashIterations": iterations, "algorithm": algorithm, "additionalParameters": {}})}


def keycloak_argon2(password, memory=7168, iterations=5, parallelism=1):
    """Keycloak 24+'s default: Argon2id 1.3, 7 MiB, 5 passes, one lane, a 32-byte hash."""
    salt = os.urandom(16)
    value = hash_secret_raw(password.encode(), salt, time_cost=iterations, memory_cost=memory, parallelism=parallelism, hash_len=32,
                            type=Type.ID, version=19)
    return {"type": "password", "createdDate": 1600000000000,
            "secretData": json.dumps({"value": b64(value), "salt": b64(salt), "additionalParameters": {}}),
            "credentialData": json.dumps({"hashIterations": iterations, "algorithm": "argon2", "additionalParameters": {
                "hashLength": ["32"], "memory": [str(memory)], "type": ["id"], "version": ["1.3"], "parallelism": [str(parallelism)]}})}


def supabase_users_csv(rows):
    """`COPY (SELECT * FROM auth.users) TO STDOUT WITH CSV HEADER`: every column, NULL as an empty cell."""
    columns = ["instance_id", "id", "aud", "role", "email", "encrypted_password", "email_confirmed_at", "invited_at", "confirmation_token",
               "confirmation_sent_at", "recovery_token", "recovery_sent_at", "email_change_token_new", "email_change", "email_change_sent_at",
               "last_sign_in_at", "raw_app_meta_data", "raw_user_meta_data", "is_super_admin", "created_at", "updated_at", "phone",
               "phone_confirmed_at", "phone_change", "phone_change_token", "phone_change_sent_at", "confirmed_at", "email_change_token_current",
               "email_change_confirm_status", "banned_until", "reauthentication_token", "reauthentication_sent_at", "is_sso_user", "deleted_at",
               "is_anonymous"]
    lines = [",".join(columns)]
    for row in rows:
        cells = []
        for column in columns:
            value = row.get(column)
            text = "" if value is None else value if isinstance(value, str) else json.dumps(value)
            cells.append('"%s"' % text.replace('"', '""') if any(ch in text for ch in ',"\n') else text)
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"
