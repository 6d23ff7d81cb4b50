import Foundation

/// Adding a passkey to a signed-in account: the creation options (`PublicKeyCredentialCreationOptionsJSON`), then the
/// browser's answer checked and stored. Discoverable credentials with user verification required; attestation `none`.
extension Passkeys {
    public func registrationOptions(for user: UserRecord, csrfCookie: String) async throws -> JSONValue {
        try requireEnabled()
        let challenge = try await newChallenge(.registration, userId: user.id, csrfCookie: csrfCookie)
        let existing = try await reader.passkeys.passkeys(userId: user.id)
        let handle = existing.first.map { Array($0.userHandle) } ?? userHandle(user.id)
        let name = user.email ?? user.username ?? user.id
        return .object([
            "rp": .object(["id": .string(relyingParty.id), "name": .string(relyingParty.name)]),
            "user": .object(["id": .string(Base64URL.encode(handle)), "name": .string(name),
                             "displayName": .string(user.attributes["name"]?.stringValue ?? name)]),
            "challenge": .string(Base64URL.encode(challenge)),
            "pubKeyCredParams": .array(COSEKey.Algorithm.allCases.map { .object(["type": "public-key", "alg": .int(Int($0.rawValue))]) }),
            "timeout": .int(settings.passkeys.challengeSeconds * 1000),
            // A second passkey on the same authenticator would only shadow the first.
            "excludeCredentials": .array(existing.map { .object(["type": "public-key", "id": .string(Base64URL.encode(Array($0.credentialId)))]) }),
            "authenticatorSelection": .object(["residentKey": "required", "requireResidentKey": .bool(true), "userVerification": "required"]),
            "attestation": "none",
        ])
    }

    /// Checks and stores the browser's `RegistrationResponseJSON` for `user`, named `name` (or after the browser).
    public func register(_ body: Data, for user: UserRecord, name: String?, csrfCookie: String, caller: CallerInfo) async throws -> PasskeyRecord {
        try requireEnabled()
        guard let response = RegistrationResponse.read(body), response.type == "public-key" else {
            throw LatchkeyError.passkeyRefused("not a RegistrationResponseJSON")
        }
        let clientData = try PasskeyResponseLimits.bytes(response.response.clientDataJSON, "clientDataJSON", max: 4096)
        let attestation = try PasskeyResponseLimits.bytes(response.response.attestationObject, "attestationObject")
        let (challenge, record) = try await takeChallenge(clientData, .registration, csrfCookie: csrfCookie)
        guard record.userId == user.id else { throw LatchkeyError.passkeyRefused(WebAuthnRefusal.challengeMismatch.reason) }
        let registered: RelyingParty.Registered
        do {
            registered = try relyingParty.verifyRegistration(clientDataJSON: clientData, attestationObject: attestation, challenge: challenge)
        } catch let refusal as WebAuthnRefusal {
            throw LatchkeyError.passkeyRefused(refusal.reason)
        }
        guard Base64URL.decode(Substring(response.id)) == registered.credentialId else {
            throw LatchkeyError.passkeyRefused("the credential id does not match the authenticator data")
        }
        let chosen = (name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let handle = try await reader.passkeys.passkeys(userId: user.id).first?.userHandle ?? Data(userHandle(user.id))
        let passkey = PasskeyRecord(id: SecureRandom.uuidString(), userId: user.id, credentialId: Data(registered.credentialId), userHandle: handle,
                                    publicKey: Data(registered.publicKey.encoded), algorithm: registered.publicKey.algorithm.rawValue,
                                    signCount: Int64(registered.signCount),
                                    name: chosen.isEmpty ? Self.defaultName(aaguid: registered.aaguid, userAgent: caller.userAgent) : String(chosen.prefix(64)),
                                    aaguid: Data(registered.aaguid), backupEligible: registered.backupEligible,
                                    backedUp: registered.backedUp, createdAt: time.now())
        try await transaction { tx in
            try await tx.passkeys.insert(passkey)
            try await self.audit(tx, "passkey_added", caller: caller, userId: user.id, email: user.email,
                                 detail: "\(passkey.name); \(registered.backupEligible ? "synced" : "device-bound")")
            try await self.engine.mailOwner(.passkeyAdded, user, what: passkey.name, caller: caller, in: tx)
        }
        return passkey
    }

    /// A passkey's name when the person gives none: its provider's, when the AAGUID is a known one; else the browser
    /// and system it was made on.
    static func defaultName(aaguid: [UInt8], userAgent: String?) -> String {
        AuthenticatorNames.name(aaguid) ?? defaultName(userAgent: userAgent)
    }

    static func defaultName(userAgent: String?) -> String {
        let agent = userAgent ?? ""
        // In order: every Chrome names Safari too, Edge names Chrome, an iPhone says "like Mac OS X", Android says Linux.
        let browser = [("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari")].first { agent.contains($0.0) }?.1
        let system = [("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("Mac OS X", "macOS"), ("Windows", "Windows"),
                      ("Linux", "Linux")].first { agent.contains($0.0) }?.1
        switch (browser, system) {
        case let (browser?, system?): return "\(browser) on \(system)"
        case let (browser?, nil): return browser
        case let (nil, system?): return "Passkey on \(system)"
        case (nil, nil): return "Passkey"
        }
    }
}
