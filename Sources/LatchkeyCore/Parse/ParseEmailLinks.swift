import Foundation

/// The Parse dialect's mailed links: email verification and password reset. They follow Latchkey's link rules
/// (256-bit tokens stored as an HMAC, single use, `link_token_ttl_seconds`, a new mail replaces the older link),
/// carried as Parse's one `token` parameter: the token id and the token, 24 + 64 hex.
extension ParseService {
    func mailParseLink(_ kind: ActionTokenRecord.Kind, to user: UserRecord, app: ParseApp, caller: CallerInfo,
                       in tx: any Repositories) async throws {
        guard let email = user.email else { return }
        let (token, tokenId) = try await engine.proofs.issueLinkToken(kind, for: user, in: tx)
        let page = kind == .confirmation ? "verify_email" : "request_password_reset"
        let appPath = app.id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? app.id
        let link = "\(settings.publicURL)\(settings.parseMount)/apps/\(appPath)/\(page)?token=\(tokenId)\(token)"
        try await engine.enqueue(engine.mailComposer.compose(kind == .confirmation ? .confirmationLink : .resetLink, to: email, link: link,
                                               validMinutes: settings.linkTokenTTLSeconds / 60,
                                               locale: engine.mailLocale(user.attributes, caller: caller),
                                               origin: MailOrigin(dialect: "parse", clientId: app.id), at: time.now()), in: tx)
    }

    /// `requestPasswordReset`: mails a reset link to an active account. Known and unknown addresses are answered
    /// alike, and the per-address mail quota counts both, so neither the answer nor a 429 tells them apart.
    public func parseRequestPasswordReset(app: ParseApp, email rawEmail: String?, caller: CallerInfo) async throws {
        try await limit(.resetPerIP, caller.ip, caller: caller)
        let email = try engine.accounts.requireEmail(rawEmail)
        try await limit(.mailPerAddress, email, caller: caller)
        try await transaction { tx in
            guard let user = try await tx.users.find(email: email), user.status == .active else { return }
            try await self.mailParseLink(.reset, to: user, app: app, caller: caller, in: tx)
        }
    }

    /// `verificationEmailRequest`: a new verification link (the older one stops working). `.userNotFound` and
    /// `.userAlreadyConfirmed` are Parse's own answers (205, -1); an app that does not verify emails sends nothing.
    /// With enumeration protection every address is answered alike (and counted against the same mail quota).
    public func parseResendVerification(app: ParseApp, email rawEmail: String?, caller: CallerInfo) async throws {
        try await limit(.mailPerIP, caller.ip, caller: caller)
        let email = try engine.accounts.requireEmail(rawEmail)
        let hidden = settings.resetEnumerationProtection
        if hidden { try await limit(.mailPerAddress, email, caller: caller) }
        try await transaction { tx -> Result<Void, LatchkeyError> in
            guard let user = try await tx.users.find(email: email), user.status == .active else { return hidden ? .success(()) : .failure(.userNotFound) }
            guard !user.emailVerified else { return hidden ? .success(()) : .failure(.userAlreadyConfirmed) }
            guard app.verifyUserEmails else { return .success(()) }
            if !hidden, let limited = try await self.limit(.mailPerAddress, email, caller: caller, in: tx) { return .failure(limited) }
            try await self.mailParseLink(.confirmation, to: user, app: app, caller: caller, in: tx)
            return .success(())
        }.get()
    }

    /// The verification page's button: the address proven through the one address proof (what someone else put on
    /// the account before ends); the link is used up.
    public func parseVerifyEmail(token: String?, caller: CallerInfo) async throws {
        let (token, tokenId) = try Self.splitParseLinkToken(token)
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        try await transaction { tx in
            let user = try await self.engine.proofs.redeemLinkToken(.confirmation, token: token, tokenId: tokenId, in: tx)
            guard user.status != .disabled else { throw LatchkeyError.linkTokenInvalid }
            guard !user.emailVerified else { return }
            // An address put on after the sign-up (a later `PUT email`) says nothing of who holds the account: its proof
            // ends what the account held. One the sign-up chose with its password confirms that sign-up.
            let moved = try await !tx.audit.events(AuditQuery(since: user.createdAt - 1, kind: "email_changed", userId: user.id, limit: 1)).isEmpty
            try await self.engine.accounts.proveAddressAndSave(user, through: moved ? .mailbox("parse verification link") : .registration("parse verification link"),
                                                               caller: caller, in: tx)
        }
    }

    /// Whether a verification link can still verify (read only: the page shows its button only for one).
    public func parseVerifyLinkIsLive(token: String?) async throws -> Bool {
        guard let (token, tokenId) = try? Self.splitParseLinkToken(token) else { return false }
        return try await engine.proofs.linkIsLive(.confirmation, token: token, tokenId: tokenId)
    }

    /// Whether a reset link can still set a password (read only: the choose-password page is shown only for one).
    public func parseResetLinkIsLive(token: String?) async throws -> Bool {
        guard let (token, tokenId) = try? Self.splitParseLinkToken(token) else { return false }
        return try await engine.proofs.linkIsLive(.reset, token: token, tokenId: tokenId)
    }

    /// The choose-password page's form: a new password from a reset link, as every recovery sets one.
    public func parseResetPassword(token: String?, password: String?, caller: CallerInfo) async throws {
        let (token, tokenId) = try Self.splitParseLinkToken(token)
        try await resetPassword(token: token, tokenId: tokenId, password: password, caller: caller)
    }

    static func splitParseLinkToken(_ combined: String?) throws -> (token: String, tokenId: String) {
        guard let combined, combined.utf8.count == 88 else { throw LatchkeyError.linkTokenMalformed }
        return try Proofs.requireLinkShape(String(combined.suffix(64)).lowercased(), String(combined.prefix(24)).lowercased())
    }
}
