import Foundation

/// The App Services email/password provider: register, confirm by link, resend, reset by link.
/// Same users, policy, limits and outbox as the native API; one account per (case-insensitive) address.
extension LatchkeyEngine {
    public func requireApp(_ id: String) throws -> AppServicesApp {
        guard let app = settings.apps.first(where: { $0.id == id }) else { throw LatchkeyError.unknownApp }
        return app
    }

    public func register(appId: String, email rawEmail: String?, password: String?, caller: CallerInfo) async throws {
        let app = try requireApp(appId)
        try await limit(.signUpPerIP, caller.ip, caller: caller)
        let email = try requireEmail(rawEmail)
        let accepted = try requireAcceptablePassword(password, email: email)
        if let existing = try await store.read({ try $0.user(email: email) }), holdsAddress(existing) {
            throw LatchkeyError.userAlreadyExists
        }
        let hash = try await hashPassword(accepted)
        let confirmed = app.confirmation == .auto
        let pair = try await transaction { tx -> (UserRecord, (token: String, tokenId: String)?) in
            let now = self.time.now()
            // An unconfirmed registration whose link expired no longer holds the address.
            if let stale = try tx.user(email: email), !self.holdsAddress(stale) { try tx.deleteUser(id: stale.id) }
            // Auto-confirmation activates the account but proves nothing about the mailbox: email_verified stays
            // false until its owner signs in by emailed code.
            let user = UserRecord(id: UUID().uuidString.lowercased(), email: email, passwordHash: hash, emailVerified: false,
                                  status: confirmed ? .active : .pending, attributes: [:], now: now)
            try tx.insert(user: user)
            try self.audit(tx, "sign_up", caller: caller, userId: user.id, email: email, detail: "app_services \(app.confirmation.rawValue)")
            switch app.confirmation {
            case .auto: return (user, nil)
            case .email: try self.mailConfirmationLink(to: user, app: app, caller: caller, in: tx); return (user, nil)
            case .function: return (user, try self.issueLinkToken(.confirmation, for: user, in: tx))
            }
        }
        if let tokens = pair.1 {
            try await runConfirmationFunction(app, user: pair.0, tokens: tokens, deleteOnFail: true, caller: caller)
        }
    }

    public func confirm(appId: String, token: String?, tokenId: String?, caller: CallerInfo) async throws {
        _ = try requireApp(appId)
        try await confirmEmail(token: token, tokenId: tokenId, caller: caller)
    }

    /// Confirms the pending account a confirmation link was mailed to (the API call and the hosted page).
    public func confirmEmail(token: String?, tokenId: String?, caller: CallerInfo) async throws {
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        try await transaction { tx in
            var user = try self.redeemLinkToken(.confirmation, token: token, tokenId: tokenId, in: tx)
            guard user.status == .pending else { throw LatchkeyError.userAlreadyConfirmed }
            user.status = .active
            user.emailVerified = true
            user.updatedAt = self.time.now()
            try tx.update(user: user)
            try self.audit(tx, "email_confirmed", caller: caller, userId: user.id, email: user.email)
        }
    }

    /// `confirm/send`: a new link (the old pair stops working) to a user still pending.
    public func resendConfirmation(appId: String, email rawEmail: String?, caller: CallerInfo) async throws {
        let app = try requireApp(appId)
        try await limit(.mailPerIP, caller.ip, caller: caller)
        let email = try requireEmail(rawEmail)
        try await transaction { tx -> Result<Void, LatchkeyError> in
            guard var user = try tx.user(email: email), self.holdsAddress(user) else { return .failure(.userNotFound) }
            guard user.status == .pending else { return .failure(.userAlreadyConfirmed) }
            if let limited = try self.limit(.mailPerAddress, email, caller: caller, in: tx) { return .failure(limited) }
            user.updatedAt = self.time.now()  // a new link keeps the registration for another link lifetime
            try tx.update(user: user)
            try self.mailConfirmationLink(to: user, app: app, caller: caller, in: tx)
            return .success(())
        }.get()
    }

    /// `reset/send`: mails a reset link to an existing user.
    public func sendPasswordReset(appId: String, email rawEmail: String?, caller: CallerInfo) async throws {
        let app = try requireApp(appId)
        try await limit(.resetPerIP, caller.ip, caller: caller)
        let email = try requireEmail(rawEmail)
        guard app.reset == .email else { throw LatchkeyError.resetRequiresFunction }
        try await transaction { tx -> Result<Void, LatchkeyError> in
            guard let user = try tx.user(email: email), user.status != .disabled else { return .failure(.userNotFound) }
            if let limited = try self.limit(.mailPerAddress, email, caller: caller, in: tx) { return .failure(limited) }
            let (token, tokenId) = try self.issueLinkToken(.reset, for: user, in: tx)
            let base = app.resetURL.isEmpty ? "\(self.settings.publicURL)/reset-password" : app.resetURL
            try self.enqueue(self.mailComposer.compose(.resetLink, to: user.email, link: self.linkURL(base, token: token, tokenId: tokenId),
                                                       validMinutes: self.settings.linkTokenTTLSeconds / 60,
                                                       locale: self.mailLocale(user.attributes, caller: caller), at: self.time.now()), in: tx)
            return .success(())
        }.get()
    }

    /// `reset`: sets the password from a valid reset link; sessions are revoked and a notice is mailed, as in the native reset.
    public func resetPassword(appId: String, token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws {
        _ = try requireApp(appId)
        try await resetPassword(token: token, tokenId: tokenId, password: password, caller: caller)
    }

    /// Sets a new password from a reset link (the API call and the hosted page).
    public func resetPassword(token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws {
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        // Shape first, so a malformed pair is a BadRequest whatever the password.
        let (token, tokenId) = try Self.requireLinkShape(token, tokenId)
        let owner = try await store.read { tx -> UserRecord in
            guard let record = try tx.actionToken(tokenId: tokenId.lowercased()), let user = try tx.user(id: record.userId) else {
                throw LatchkeyError.linkTokenInvalid
            }
            return user
        }
        let accepted = try requireAcceptablePassword(password, email: owner.email)
        let hash = try await hashPassword(accepted)
        try await transaction { tx in
            var user = try self.redeemLinkToken(.reset, token: token, tokenId: tokenId, in: tx)
            try self.applyNewPassword(hash, to: &user, caller: caller, in: tx)
        }
    }

    /// Stores a new password hash: lock cleared, every session revoked, notice mailed, audited.
    func applyNewPassword(_ hash: String, to user: inout UserRecord, caller: CallerInfo, in tx: any StoreWriting) throws {
        let now = time.now()
        user.passwordHash = hash
        user.failedLoginCount = 0
        user.lockedUntil = nil
        user.updatedAt = now
        try tx.update(user: user)
        try tx.revokeRefreshTokens(userId: user.id, at: now)
        try enqueue(mailComposer.compose(.passwordChanged, to: user.email, locale: mailLocale(user.attributes, caller: caller), at: now), in: tx)
        try audit(tx, "password_reset", caller: caller, userId: user.id, email: user.email)
    }

    /// Whether an account keeps its address: any confirmed one, and a pending one until its link's lifetime
    /// (from the last mail) has passed.
    func holdsAddress(_ user: UserRecord) -> Bool {
        user.status != .pending || user.updatedAt + Double(settings.linkTokenTTLSeconds) > time.now()
    }

    private func mailConfirmationLink(to user: UserRecord, app: AppServicesApp, caller: CallerInfo, in tx: any StoreWriting) throws {
        let (token, tokenId) = try issueLinkToken(.confirmation, for: user, in: tx)
        let base = app.confirmationURL.isEmpty ? "\(settings.publicURL)/confirm" : app.confirmationURL
        try enqueue(mailComposer.compose(.confirmationLink, to: user.email, link: linkURL(base, token: token, tokenId: tokenId),
                                         validMinutes: settings.linkTokenTTLSeconds / 60,
                                         locale: mailLocale(user.attributes, caller: caller), at: time.now()), in: tx)
    }
}
