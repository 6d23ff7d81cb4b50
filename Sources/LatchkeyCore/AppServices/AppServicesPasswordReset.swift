import Foundation

/// Recovery by link: a reset link mailed to an existing user, and the new password set from it.
extension AppServicesService {
    /// Mails a reset link to an existing user. With enumeration protection every address is answered alike (and
    /// counted against the same mail quota); only real accounts get a mail.
    public func sendPasswordReset(appId: String, email rawEmail: String?, caller: CallerInfo) async throws {
        let app = try requireApp(appId)
        try await limit(.resetPerIP, caller.ip, caller: caller)
        let email = try engine.accounts.requireEmail(rawEmail)
        guard app.reset == .email else { throw LatchkeyError.recoveryNotByMail }
        let hidden = settings.resetEnumerationProtection
        if hidden { try await limit(.mailPerAddress, email, caller: caller) }
        try await transaction { tx -> Result<Void, LatchkeyError> in
            guard let user = try await tx.users.find(email: email), user.status != .disabled else {
                return hidden ? .success(()) : .failure(.userNotFound)
            }
            if !hidden, let limited = try await self.limit(.mailPerAddress, email, caller: caller, in: tx) { return .failure(limited) }
            let (token, tokenId) = try await engine.proofs.issueLinkToken(.reset, for: user, in: tx)
            let base = app.resetURL.isEmpty ? "\(self.settings.publicURL)/reset-password" : app.resetURL
            try await engine.enqueue(engine.mailComposer.compose(.resetLink, to: email, link: engine.proofs.linkURL(base, token: token, tokenId: tokenId),
                                                             validMinutes: self.settings.linkTokenTTLSeconds / 60,
                                                             locale: engine.mailLocale(user.attributes, caller: caller),
                                                             origin: MailOrigin(dialect: "app_services", clientId: app.id), at: self.time.now()), in: tx)
            return .success(())
        }.get()
    }
}
