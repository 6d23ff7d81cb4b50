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
extension AccountRules {
    /// Marks the address of `user` proven through `journey` (`"code sign-in"`, `"password reset"`) and removes what
    /// the account held before; nothing happens when the address was proven already. The caller updates `user`.
    /// Returns what was removed, by kind, for the caller's own mail and audit.
    @discardableResult
    func proveAddress(_ user: inout UserRecord, through journey: String, caller: CallerInfo, in tx: any Repositories) async throws -> [String] {
        guard !user.emailVerified, let email = user.email else { return [] }
        let now = time.now()
        user.emailVerified = true
        user.updatedAt = now
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
                        detail: "\(journey); removed: \(removed.isEmpty ? "nothing" : removed.joined(separator: ", "))")
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

    /// Verifying finishes a pending registration; it never re-enables an account an operator disabled.
    func markVerified(_ user: UserRecord, detail: String?, caller: CallerInfo, in tx: any Repositories) async throws {
        var user = user
        if user.status == .pending { user.status = .active }
        user.emailVerified = true
        user.updatedAt = time.now()
        try await tx.users.update(user)
        try await audit(tx, "email_confirmed", caller: caller, userId: user.id, email: user.email, detail: detail)
    }
}
