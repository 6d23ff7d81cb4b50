import Foundation

/// What comes with an accepted account besides the account: its identities, passkeys, password hash and custom
/// user data, each by the rule the rest of the engine applies to them.
extension UserImporter {
    /// Identities of the accepted accounts. One already held by an account here stays with it (counted as a
    /// problem; the account is imported without it); a provider not configured here is kept and counted.
    func importIdentities(_ identities: [IdentityRecord], tally: inout ImportTally, in tx: any Repositories) async throws {
        var free: [IdentityRecord] = []
        var seen = Set<String>()
        for identity in identities {
            let key = "\(identity.provider)\u{0}\(identity.subject)"
            let held = try await tx.identities.identity(provider: identity.provider, subject: identity.subject) != nil
            if !seen.insert(key).inserted || held {
                tally.problem(0, "\(identity.provider) identity already belongs to another account; not carried")
                continue
            }
            free.append(identity)
            let served = identity.provider == VerifiedIdentity.anonymousProvider || settings.identities.providers[identity.provider] != nil
            if !served { tally.identitiesUnconfigured += 1 }
        }
        try await tx.identities.link(contentsOf: free)
        tally.identitiesCarried += free.count
        for identity in free { tally.identitiesByProvider[identity.provider, default: 0] += 1 }
    }

    /// Passkeys of the accepted accounts; one whose credential id is registered here already stays where it is
    /// (checked first: a refused insert would end the batch's transaction on PostgreSQL).
    func importPasskeys(_ passkeys: [PasskeyRecord], tally: inout ImportTally, in tx: any Repositories) async throws {
        var seen = Set<Data>()
        for passkey in passkeys {
            guard seen.insert(passkey.credentialId).inserted, try await tx.passkeys.passkey(credentialId: passkey.credentialId) == nil else {
                tally.problem(0, "a passkey is registered to another account already; not carried")
                continue
            }
            try await tx.passkeys.insert(passkey)
            tally.passkeysCarried += 1
        }
    }

    /// The hash to store: the source's when it can be verified here, else the legacy-password marker when the source
    /// kept the password and a function checks it, else none (counted by why).
    func importableHash(_ source: ImportedUser, line: Int, tally: inout ImportTally) -> String? {
        var hash = source.passwordHash.flatMap { $0.isEmpty ? nil : $0 }
        var refused = source.unusableHash
        if let stored = hash {
            switch PasswordHasher.importableScheme(stored) {
            case .success(let scheme): tally.hashesByScheme[scheme, default: 0] += 1
            case .failure(let refusal): refused = refusal
            }
        }
        let legacy = settings.legacyPasswordFunction == nil ? nil : source.legacySource
        if let refusal = refused {
            tally.unsupportedHashes[refusal.scheme, default: 0] += 1
            tally.problem(line, "password hash \(refusal.scheme): \(refusal.reason); "
                          + (legacy == nil ? "imported without a password" : "the legacy-password function checks it at first sign-in"))
            hash = nil
        }
        if hash == nil, let legacy {
            tally.legacyPasswords += 1
            return LegacyPassword.marker(source: legacy)
        }
        if hash == nil { tally.withoutPassword += 1 }
        return hash
    }

    /// The record's custom user data that custom data's rule takes (a configured app, within the size cap); the rest
    /// is named under problems and counted as dropped fields.
    func importableCustomData(_ source: ImportedUser, userId: String, tally: inout ImportTally) -> [CustomDataRecord] {
        source.customData.sorted(by: { $0.key < $1.key }).compactMap { appId, document in
            do {
                return CustomDataRecord(userId: userId, appId: appId, document: try CustomUserData.checked(document, appId: appId, apps: settings.apps) ?? [:],
                                        updatedAt: time.now())
            } catch {
                tally.fieldsDropped += 1
                tally.problem(source.line, error as? CustomUserData.Refusal == .unknownApp(appId)
                              ? "custom data for app \(appId), which app_services.apps does not name; not carried"
                              : "custom data for app \(appId) is over \(CustomUserData.maxBytes) bytes; not carried")
                return nil
            }
        }
    }
}
