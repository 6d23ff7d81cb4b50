import Foundation

/// Recovery by link: a reset link mailed to an existing user, and the new password set from it.
extension LatchkeyEngine {
    /// Mails a reset link to an existing user. With enumeration protection every address is answered alike (and
    /// counted against the same mail quota); only real accounts get a mail.
    public func sendPasswordReset(appId: String, email rawEmail: String?, caller: CallerInfo) async throws {
        let app = try requireApp(appId)
        try await limit(.resetPerIP, caller.ip, caller: caller)
        let email = try requireEmail(rawEmail)
        guard app.reset == .email else { throw LatchkeyError.recoveryNotByMail }
        let hidden = settings.resetEnumerationProtection
        if hidden { try await limit(.mailPerAddress, email, caller: caller) }
        try await transaction { tx -> Result<Void, LatchkeyError> in
            guard let user = try await tx.users.find(email: email), user.status != .disabled else {
                return hidden ? .success(()) : .failure(.userNotFound)
            }
            if !hidden, let limited = try await self.limit(.mailPerAddress, email, caller: caller, in: tx) { return .failure(limited) }
            let (token, tokenId) = try await self.issueLinkToken(.reset, for: user, in: tx)
            let base = app.resetURL.isEmpty ? "\(self.settings.publicURL)/reset-password" : app.resetURL
            try await self.enqueue(self.mailComposer.compose(.resetLink, to: email, link: self.linkURL(base, token: token, tokenId: tokenId),
                                                             validMinutes: self.settings.linkTokenTTLSeconds / 60,
                                                             locale: self.mailLocale(user.attributes, caller: caller),
                                                             at: self.time.now()), in: tx)
            return .success(())
        }.get()
    }

    public func resetPassword(appId: String, token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws {
        _ = try requireApp(appId)
        try await resetPassword(token: token, tokenId: tokenId, password: password, caller: caller)
    }

    /// Whether a reset link can still set a password (read only: the hosted form is shown only for one).
    public func resetLinkIsLive(token: String?, tokenId: String?) async throws -> Bool {
        let (token, tokenId) = try Self.requireLinkShape(token, tokenId)
        return try await linkIsLive(.reset, token: token, tokenId: tokenId)
    }

    /// Sets a new password from a reset link (the API call and the hosted page).
    public func resetPassword(token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws {
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        // Shape first, so a malformed pair is refused as such whatever the password.
        let (token, tokenId) = try Self.requireLinkShape(token, tokenId)
        guard let record = try await reader.linkTokens.find(tokenId: tokenId.lowercased()),
              let owner = try await reader.users.find(id: record.userId) else { throw LatchkeyError.linkTokenInvalid }
        let accepted = try requireAcceptablePassword(password, identifiers: [owner.email, owner.username])
        let hash = try await passwords.hash(accepted)
        try await transaction { tx in
            var user = try await self.redeemLinkToken(.reset, token: token, tokenId: tokenId, in: tx)
            // The link reached the mailbox: the reset proves the address.
            try await self.applyNewPassword(hash, to: &user, provesAddress: true, caller: caller, in: tx)
        }
    }
}
