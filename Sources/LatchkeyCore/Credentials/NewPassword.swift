import Foundation

extension AccountRules {
    /// What every recovery strategy does with the new password: stored, lock cleared, every session of every kind
    /// revoked, the user API keys too (`accounts.reset_revokes_api_keys`), a notice naming what ended mailed (also to
    /// `previousEmail`, the address the account held before this same change), audited. A reset that reached the
    /// mailbox (a mailed code or link: `provesAddress`) proves the address first, with what that ends
    /// (`proveAddress`). A change by the signed-in user (`recovery: false`) keeps the API keys.
    func applyNewPassword(_ hash: String, to user: inout UserRecord, previousEmail: String? = nil, provesAddress: Bool = false,
                          recovery: Bool = true, caller: CallerInfo, in tx: any Repositories) async throws {
        let now = time.now()
        if provesAddress { try await proveAddress(&user, through: .mailbox("password reset"), caller: caller, in: tx) }
        user.passwordHash = hash
        user.failedLoginCount = 0
        user.lockedUntil = nil
        user.updatedAt = now
        try await tx.users.update(user)
        try await engine.tokens.revokeEverySession(userId: user.id, at: now, in: tx)
        let ended = recovery ? try await resetEndsApiKeys(of: user.id, in: tx) : []
        for email in Set([user.email, previousEmail].compactMap { $0 }).sorted() {
            try await engine.enqueue(engine.mailComposer.compose(.passwordChanged, to: email, removed: ended.isEmpty ? nil : ended.joined(separator: ", "),
                                                   locale: engine.mailLocale(user.attributes, caller: caller), at: now), in: tx)
        }
        try await audit(tx, "password_reset", caller: caller, userId: user.id, email: user.email,
                        detail: ended.isEmpty ? nil : "ended: \(ended.joined(separator: ", "))")
        EngineMetrics.passwordReset(caller.dialect)
    }
}
