import Foundation

/// What proving an account's address ends, and what a password reset ends: the rules every journey that proves a
/// mailbox or resets a password goes through, in one place.
///
/// An address put on an account without proof (a Parse `PUT /users/:id {"email"}`, an App Services registration
/// under `confirmation: auto`, an import) says nothing about who holds the account. When the mailbox's owner then
/// proves it (a sign-in by emailed code, a reset by mailed code or link), whatever the account held before that proof
/// was put there by someone who had not proven the address, maybe to wait for the owner and then walk in: the
/// password, every identity (anonymous, Apple, Google, issuers, custom tokens, login functions), the user API keys and
/// the second factors are removed, every session of every kind ends (refresh families, Parse sessions, browser
/// sessions, and with them the App Services access tokens, which are checked against a live session), the event is
/// audited and the owner is mailed what was removed.
/// How an address came to be proven, which decides what the proof ends.
public enum AddressProofPath: Sendable, Equatable {
    /// The mailbox alone was proven (a code sign-in, a reset, a Parse verification link): whatever the account held
    /// before was put there by someone who had not proven it, and ends.
    case mailbox(String)
    /// A pending registration confirmed by its own link or function: the account was never usable, and what the
    /// registration set (its password) is what the link confirms.
    case registration(String)
    /// Proven within a session the assurance rule found enough for the account (the account page's new address, a
    /// preverified factor after the account's password), or vouched for by an operator: nothing ends.
    case assured(String)

    var journey: String {
        switch self { case .mailbox(let j), .registration(let j), .assured(let j): j }
    }
}

extension AccountRules {
    /// Marks the address of `user` proven through `path` and removes what the account held before when only the
    /// mailbox was proven; nothing happens when the address was proven already. A pending registration becomes
    /// active; a disabled account stays disabled. The caller updates `user`. Returns what was removed.
    @discardableResult
    func proveAddress(_ user: inout UserRecord, through path: AddressProofPath, caller: CallerInfo, in tx: any Repositories) async throws -> [String] {
        guard !user.emailVerified, let email = user.email else { return [] }
        let now = time.now()
        let wasPending = user.status == .pending
        user.emailVerified = true
        if wasPending { user.status = .active }
        user.updatedAt = now
        guard case .mailbox = path, !wasPending else {
            try await audit(tx, wasPending ? "email_confirmed" : "address_proven", caller: caller, userId: user.id, email: email,
                            detail: "\(path.journey); removed: nothing")
            return []
        }
        var removed: [String] = []
        if user.passwordHash != nil {
            user.passwordHash = nil
            removed.append("the password")
        }
        for identity in try await tx.identities.identities(userId: user.id) {
            // An issuer trusted for addresses that vouched for this very address when it was linked proves the same
            // mailbox: the operator may keep it (`accounts.keep_identities_verifying_the_address`).
            if settings.keepIdentitiesVerifyingTheAddress, let vouched = identity.verifiedEmail, vouched == EmailAddress.normalize(email) {
                continue
            }
            _ = try await tx.identities.unlink(provider: identity.provider, userId: user.id)
            removed.append("the \(identity.provider) sign-in")
        }
        removed += try await removeApiKeys(of: user.id, in: tx)
        let factors = try await tx.secondFactors.deleteSecondFactors(userId: user.id, kinds: SecondFactorRecord.Kind.allCases)
        if factors > 0 { removed.append(factors == 1 ? "a second factor" : "\(factors) second factors") }
        try await engine.tokens.revokeEverySession(userId: user.id, at: now, in: tx)
        try await audit(tx, "address_proven", caller: caller, userId: user.id, email: email,
                        detail: "\(path.journey); removed: \(removed.isEmpty ? "nothing" : removed.joined(separator: ", "))")
        if !removed.isEmpty {
            try await engine.enqueue(engine.mailComposer.compose(.accessRemoved, to: email, removed: removed.joined(separator: ", "),
                                                   locale: engine.mailLocale(user.attributes, caller: caller), at: now), in: tx)
        }
        return removed
    }

    /// What a password reset ends besides the sessions (`applyNewPassword`): the user API keys, unless the operator
    /// keeps them (`accounts.reset_revokes_api_keys: false`).
    func resetEndsApiKeys(of userId: String, in tx: any Repositories) async throws -> [String] {
        settings.resetRevokesApiKeys ? try await removeApiKeys(of: userId, in: tx) : []
    }

    private func removeApiKeys(of userId: String, in tx: any Repositories) async throws -> [String] {
        let keys = try await tx.apiKeys.apiKeys(userId: userId)
        for key in keys { _ = try await tx.apiKeys.deleteApiKey(id: key.id) }
        return keys.map { "the API key \"\($0.name)\"" }
    }

    /// `proveAddress`, with the account written.
    @discardableResult
    func proveAddressAndSave(_ user: UserRecord, through path: AddressProofPath, caller: CallerInfo, in tx: any Repositories) async throws -> [String] {
        var user = user
        let removed = try await proveAddress(&user, through: path, caller: caller, in: tx)
        try await tx.users.update(user)
        return removed
    }
}
