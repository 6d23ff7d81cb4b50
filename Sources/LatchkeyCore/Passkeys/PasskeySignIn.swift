import Foundation

/// Signing in with a passkey, no address typed: the request options (`PublicKeyCredentialRequestOptionsJSON`, no
/// allowed list: the authenticator offers its discoverable credentials), then the assertion checked against the
/// stored key and counter. User verification on a passkey is two factors (the device and its own check).
extension Passkeys {
    public func authenticationOptions(csrfCookie: String) async throws -> JSONValue {
        try requireEnabled()
        let challenge = try await newChallenge(.authentication, userId: nil, csrfCookie: csrfCookie)
        return .object([
            "challenge": .string(Base64URL.encode(challenge)), "rpId": .string(relyingParty.id),
            "timeout": .int(settings.passkeys.challengeSeconds * 1000), "allowCredentials": .array([]), "userVerification": "required",
        ])
    }

    /// Checks the browser's `AuthenticationResponseJSON`; the account it signs in, and how (`amr`), with the browser
    /// session `opening` makes for it (and the code for the app, when the visit goes straight back). The challenge's
    /// and the passkey's use, the sign-in's record, the browser session and the code are one write joining the group
    /// commit, as a login's session is; of two uses of one challenge, one writes.
    func authenticate(_ body: Data, csrfCookie: String, caller: CallerInfo,
                      opening: (BrowserSignIn) async throws -> (BrowserSessionRecord, AuthorizationCodeRecord?)) async throws -> BrowserSignIn {
        let asserted = try await verifiedAssertion(body, csrfCookie: csrfCookie, caller: caller, takingChallenge: false)
        var user = asserted.user
        var note = engine.accounts.signInNote(&user, method: "passkey \(asserted.passkey.name)", amr: asserted.amr, caller: caller)
        let signIn = BrowserSignIn(user: user, amr: asserted.amr)
        (note.browserSession, note.authorizationCode) = try await opening(signIn)
        guard try await engine.standaloneWrite({ [note] in
            try await $0.passkeys.recordUse(id: asserted.passkey.id, signCount: Int64(asserted.signCount), backedUp: asserted.backedUp,
                                            at: note.event.at, noting: note, takingChallenge: asserted.challengeHash)
        }) else { throw LatchkeyError.passkeyRefused(WebAuthnRefusal.challengeMismatch.reason) }
        EngineMetrics.signIn(caller.dialect, "success")
        return signIn
    }

    /// The assertion checked: the passkey, its account, the methods it proves and the counter to record. What the
    /// sign-in then is (a first factor, or a second) is the caller's, which records the use (`recordUse`) in the
    /// transaction that ends its step. The challenge is taken first; or, with `takingChallenge` false, read and left
    /// for the caller's write to take (`challengeHash`), and taken here only when a check fails, so a refused assertion
    /// spends it all the same.
    func verifiedAssertion(_ body: Data, csrfCookie: String, caller: CallerInfo, takingChallenge: Bool = true) async throws -> VerifiedAssertion {
        try requireEnabled()
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        guard let response = AuthenticationResponse.read(body), response.type == "public-key" else {
            throw LatchkeyError.passkeyRefused("not an AuthenticationResponseJSON")
        }
        let clientData = try PasskeyResponseLimits.bytes(response.response.clientDataJSON, "clientDataJSON", max: 4096)
        let authenticatorData = try PasskeyResponseLimits.bytes(response.response.authenticatorData, "authenticatorData")
        let signature = try PasskeyResponseLimits.bytes(response.response.signature, "signature", max: 1024)
        let credentialId = try PasskeyResponseLimits.bytes(response.id, "id", max: AuthenticatorData.maxCredentialIdBytes)
        do {
            let challenge: [UInt8], found: (passkey: PasskeyRecord, user: UserRecord)?
            if takingChallenge {
                challenge = try await takeChallenge(clientData, .authentication, csrfCookie: csrfCookie).challenge
                found = try await reader.passkeys.passkeyWithUser(credentialId: Data(credentialId))
            } else {
                // Read together, left for the caller's write to take; the challenge's checks still come first.
                challenge = try presentedChallenge(clientData)
                let read = try await reader.passkeys.challengeAndPasskey(hash: challengeHash(challenge), now: time.now(), credentialId: Data(credentialId))
                _ = try accepted(read.challenge, .authentication, csrfCookie: csrfCookie)
                found = read.passkey
            }
            return try await checkedAssertion(response, clientData: clientData, authenticatorData: authenticatorData, signature: signature,
                                              found: found, challenge: challenge, caller: caller)
        } catch {
            // Refused (another visit's challenge, or any check after it): the challenge it named is spent all the same.
            if !takingChallenge, let challenge = try? presentedChallenge(clientData) {
                _ = try await engine.standaloneWrite { try await $0.passkeys.takeChallenge(hash: self.challengeHash(challenge), now: self.time.now()) }
            }
            throw error
        }
    }

    private func checkedAssertion(_ response: AuthenticationResponse, clientData: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
                                  found: (passkey: PasskeyRecord, user: UserRecord)?, challenge: [UInt8], caller: CallerInfo) async throws
        -> VerifiedAssertion {
        guard let (passkey, user) = found, user.status == .active else {
            throw LatchkeyError.passkeyRefused("this passkey is not registered here")
        }
        // Every assertion here is usernameless (no allowCredentials): it must name its account (WebAuthn L3 §7.2 step 6).
        guard let handle = response.response.userHandle, !handle.isEmpty else {
            throw LatchkeyError.passkeyRefused("the assertion has no userHandle: a passkey sign-in must name its account")
        }
        guard Base64URL.decode(Substring(handle)) == Array(passkey.userHandle) else {
            throw LatchkeyError.passkeyRefused("the user handle is not this passkey's account")
        }
        // A suspected clone signs in no more, as a first factor or a second, until its flag is cleared.
        guard passkey.cloneFlaggedAt == nil else {
            throw LatchkeyError.passkeyRefused("this passkey is suspected of being cloned: its owner or an operator must clear it first")
        }
        let key = try COSEKey(encoded: Array(passkey.publicKey))
        let asserted: RelyingParty.Asserted
        do {
            asserted = try relyingParty.verifyAssertion(clientDataJSON: clientData, authenticatorData: authenticatorData, signature: signature,
                                                        challenge: challenge, publicKey: key, storedSignCount: UInt32(clamping: passkey.signCount))
        } catch let refusal as WebAuthnRefusal {
            if case .counterWentBack = refusal { try await flagClone(passkey, user: user, caller: caller) }
            throw LatchkeyError.passkeyRefused(refusal.reason)
        }
        return VerifiedAssertion(passkey: passkey, user: user, amr: AuthenticationMethods.passkey(synced: passkey.backupEligible),
                                 signCount: asserted.signCount, backedUp: asserted.backedUp, challengeHash: challengeHash(challenge))
    }

    /// The passkey's new counter, backup state and last use.
    func recordUse(_ asserted: VerifiedAssertion, in tx: any Repositories) async throws {
        _ = try await tx.passkeys.recordUse(id: asserted.passkey.id, signCount: Int64(asserted.signCount), backedUp: asserted.backedUp,
                                            at: time.now())
    }

    /// A counter that went back: the passkey is flagged for the operator and the owner is told, once.
    private func flagClone(_ passkey: PasskeyRecord, user: UserRecord, caller: CallerInfo) async throws {
        try await transaction { tx in
            guard try await tx.passkeys.flagClone(id: passkey.id, at: self.time.now()) else { return }
            try await self.audit(tx, "passkey_clone_suspected", caller: caller, userId: user.id, email: user.email, detail: passkey.name)
            try await self.engine.mailOwner(.passkeyCloneSuspected, user, what: passkey.name, caller: caller, in: tx)
        }
    }
}

/// A passkey assertion that passed every check, before its use is recorded.
struct VerifiedAssertion {
    var passkey: PasskeyRecord
    var user: UserRecord
    var amr: [String]
    var signCount: UInt32
    var backedUp: Bool
    /// The challenge it answered (taken already, unless the caller's write takes it).
    var challengeHash: Data
}
