import Foundation

/// What an operator does for someone who writes "I can't sign in": lift a lockout, mail a reset link.
extension OperatorService {
    public enum RecoveryRefusal: ClassifiedError, Sendable, Equatable {
        public var errorClass: ErrorClass { .conflict }
        /// The account has no email address to mail the link to.
        case noEmail
        /// A disabled account gets no reset link: enable it first.
        case disabled
    }

    /// Lifts a lockout from wrong passwords or second factors and starts the count of failures again.
    public func adminUnlock(_ key: String, caller: CallerInfo) async throws -> UserRecord {
        let found = try await adminFindUser(key)
        return try await transaction { tx in
            guard var user = try await tx.users.find(id: found.id) else { throw AdminError.userNotFound }
            guard user.lockedUntil != nil || user.failedLoginCount > 0 else { return user }
            user.lockedUntil = nil
            user.failedLoginCount = 0
            user.updatedAt = self.time.now()
            try await tx.users.update(user)
            try await self.audit(tx, "admin.user_unlocked", caller: caller, userId: user.id, email: user.email)
            return user
        }
    }

    /// Mails the user a link to the hosted reset page (`/reset-password`), as App Services' reset does.
    public func adminSendPasswordReset(_ key: String, caller: CallerInfo) async throws {
        let found = try await adminFindUser(key)
        guard let email = found.email else { throw RecoveryRefusal.noEmail }
        guard found.status != .disabled else { throw RecoveryRefusal.disabled }
        guard found.status != .pending else { throw AdminError.userPending }
        try await transaction { tx in
            guard let user = try await tx.users.find(id: found.id) else { throw AdminError.userNotFound }
            let (token, tokenId) = try await self.engine.proofs.issueLinkToken(.reset, for: user, in: tx)
            let link = self.engine.proofs.linkURL("\(self.settings.publicURL)/reset-password", token: token, tokenId: tokenId)
            try await self.engine.enqueue(self.engine.mailComposer.compose(.resetLink, to: email, link: link,
                                                             validMinutes: self.settings.linkTokenTTLSeconds / 60,
                                                             locale: self.engine.mailLocale(user.attributes, caller: caller), at: self.time.now()),
                                   in: tx)
            try await self.audit(tx, "admin.reset_mail_sent", caller: caller, userId: user.id, email: email)
        }
    }
}
