import Foundation

extension LatchkeyEngine {
    /// What every recovery strategy does with the new password: stored, lock cleared, every session revoked, a
    /// notice mailed (also to `previousEmail`, the address the account held before this same change), audited.
    func applyNewPassword(_ hash: String, to user: inout UserRecord, previousEmail: String? = nil, caller: CallerInfo,
                          in tx: any Repositories) async throws {
        let now = time.now()
        user.passwordHash = hash
        user.failedLoginCount = 0
        user.lockedUntil = nil
        user.updatedAt = now
        try await tx.users.update(user)
        try await self.revokeEverySession(userId: user.id, at: now, in: tx)
        for email in Set([user.email, previousEmail].compactMap { $0 }).sorted() {
            try await enqueue(mailComposer.compose(.passwordChanged, to: email, locale: mailLocale(user.attributes, caller: caller), at: now),
                              in: tx)
        }
        try await audit(tx, "password_reset", caller: caller, userId: user.id, email: user.email)
        EngineMetrics.passwordReset(caller.dialect)
    }
}
