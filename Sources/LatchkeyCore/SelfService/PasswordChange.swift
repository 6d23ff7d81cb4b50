import Foundation

extension SelfService {
    /// Changes the password (or sets one where the account has none). The current password proves it is the owner;
    /// without it, the sign-in must be recent. Every other session ends (the account model's rule for a new
    /// password); this browser stays signed in with a new session carrying the same sign-in. Returns its cookie.
    public func changePassword(_ holder: AccountHolder, current: String?, new: String?, caller: CallerInfo) async throws -> String {
        let caller = CallerInfo.selfService(caller)
        try await requireAssurance(.add(.password), holder, proved: try await proof(holder, typedPassword: current, caller: caller))
        let password = try engine.accounts.requireAcceptablePassword(new, identifiers: [holder.user.email, holder.user.username])
        if let phc = holder.user.passwordHash, try await engine.passwords.verify(password, against: phc) != .mismatch {
            throw LatchkeyError.passwordRejected(.recentlyUsed)
        }
        let hash = try await engine.passwords.hash(password)
        let cookie = SecureRandom.token(), now = time.now()
        try await transaction { tx in
            var user = try await self.current(holder, in: tx)
            try await self.engine.accounts.applyNewPassword(hash, to: &user, recovery: false, caller: caller, in: tx)
            var kept = holder.session
            kept.id = TimeOrderedID.make(at: now)
            kept.tokenHash = self.engine.secretHash(cookie)
            kept.revokedAt = nil
            try await tx.openID.insert(kept)
        }
        return cookie
    }
}
