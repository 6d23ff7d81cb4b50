import Foundation

/// Passkeys: WebAuthn registration for a signed-in account and discoverable sign-in, with the challenges bound to the
/// browser's visit and taken once. The relying party's checks are `RelyingParty`'s; this part keeps the records,
/// the counters and the account's opaque user handle.
public struct Passkeys: EngineKernel {
    public let engine: LatchkeyEngine

    var settings: EngineSettings { engine.settings }
    var relyingParty: RelyingParty { settings.passkeys.relyingParty }

    /// A new account's WebAuthn user id: opaque and stable, never the address (an HMAC of the account id). An account
    /// that has passkeys keeps theirs (one imported from another deployment included).
    func userHandle(_ userId: String) -> [UInt8] { Array(engine.secretHash("passkey user handle \(userId)")) }

    /// How a challenge is kept: its HMAC, like every other secret handed out.
    func challengeHash(_ challenge: [UInt8]) -> Data { engine.secretHash("passkey challenge " + Base64URL.encode(challenge)) }

    /// What binds a challenge to the browser's visit: the HMAC of its CSRF cookie.
    func visitHash(_ csrfCookie: String) -> Data { engine.secretHash("passkey visit " + csrfCookie) }

    func requireEnabled() throws {
        guard settings.passkeys.enabled else { throw LatchkeyError.passkeyRefused("passkeys are not enabled here") }
    }

    /// A new challenge for `purpose`, stored bound to the visit (and, for a registration, to the account).
    func newChallenge(_ purpose: PasskeyChallengeRecord.Purpose, userId: String?, csrfCookie: String) async throws -> [UInt8] {
        let challenge = SecureRandom.bytes(32)
        try await engine.standaloneWrite {
            try await $0.passkeys.saveChallenge(PasskeyChallengeRecord(
                challengeHash: self.challengeHash(challenge), purpose: purpose, userId: userId, visitHash: self.visitHash(csrfCookie),
                expiresAt: self.time.now() + Double(self.settings.passkeys.challengeSeconds)))
        }
        return challenge
    }

    /// Takes the challenge the client data names: once, while live, for `purpose`, from the same visit.
    func takeChallenge(_ clientDataJSON: [UInt8], _ purpose: PasskeyChallengeRecord.Purpose, csrfCookie: String) async throws
        -> (challenge: [UInt8], record: PasskeyChallengeRecord) {
        let challenge = try presentedChallenge(clientDataJSON)
        let hash = challengeHash(challenge), now = time.now()
        let found = try await engine.standaloneWrite({ try await $0.passkeys.takeChallenge(hash: hash, now: now) })
        return (challenge, try accepted(found, purpose, csrfCookie: csrfCookie))
    }

    /// The challenge found for the one presented, if it may be answered here: live, for `purpose`, from the same visit.
    func accepted(_ found: PasskeyChallengeRecord?, _ purpose: PasskeyChallengeRecord.Purpose, csrfCookie: String) throws -> PasskeyChallengeRecord {
        guard let record = found, record.purpose == purpose, record.visitHash == visitHash(csrfCookie) else {
            throw LatchkeyError.passkeyRefused(WebAuthnRefusal.challengeMismatch.reason)
        }
        return record
    }

    /// The challenge the client data names.
    func presentedChallenge(_ clientDataJSON: [UInt8]) throws -> [UInt8] {
        let client = try ClientData.read(clientDataJSON)
        guard let challenge = Base64URL.decode(Substring(client.challenge)), challenge.count == 32 else {
            throw LatchkeyError.passkeyRefused(WebAuthnRefusal.challengeMismatch.reason)
        }
        return challenge
    }
}

extension LatchkeyEngine {
    /// Passkey registration and sign-in.
    var passkeys: Passkeys { Passkeys(engine: self) }
}
