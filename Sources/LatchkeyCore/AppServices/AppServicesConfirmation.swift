import Foundation

/// Email verification as its own flow: a link mailed to a pending account, its redemption, resending, and the
/// operator's function as the other way to deliver or decide it.
extension AppServicesService {
    public func confirm(appId: String, token: String?, tokenId: String?, caller: CallerInfo) async throws {
        _ = try requireApp(appId)
        try await engine.proofs.confirmEmail(token: token, tokenId: tokenId, caller: caller)
    }

    /// A new link (the old pair stops working) to a user still pending. With enumeration protection every address
    /// is answered alike (and counted against the same mail quota).
    public func resendConfirmation(appId: String, email rawEmail: String?, caller: CallerInfo) async throws {
        let app = try requireApp(appId)
        try await limit(.mailPerIP, caller.ip, caller: caller)
        let email = try engine.accounts.requireEmail(rawEmail)
        let hidden = settings.resetEnumerationProtection
        if hidden { try await limit(.mailPerAddress, email, caller: caller) }
        try await transaction { tx -> Result<Void, LatchkeyError> in
            guard var user = try await tx.users.find(email: email), engine.accounts.holdsAddress(user) else {
                return hidden ? .success(()) : .failure(.userNotFound)
            }
            guard user.status == .pending else { return hidden ? .success(()) : .failure(.userAlreadyConfirmed) }
            if !hidden, let limited = try await self.limit(.mailPerAddress, email, caller: caller, in: tx) { return .failure(limited) }
            user.updatedAt = self.time.now()  // a new link keeps the registration for another link lifetime
            try await tx.users.update(user)
            try await self.mailConfirmationLink(to: user, app: app, caller: caller, in: tx)
            return .success(())
        }.get()
    }

    /// Runs the verification function with `{token, tokenId, username}`: `success` confirms, `pending` leaves the
    /// account pending (the function delivers the pair out of band), `fail` removes a new account (registration)
    /// or leaves it pending (retry).
    func runConfirmationFunction(_ app: AppServicesApp, user: UserRecord, email: String, tokens: (token: String, tokenId: String),
                                 deleteOnFail: Bool, caller: CallerInfo) async throws {
        let outcome = await callFunction(app.confirmationFunction, [.object([
            "token": .string(tokens.token), "tokenId": .string(tokens.tokenId), "username": .string(email)])])
        try await transaction { tx in
            guard let current = try await tx.users.find(id: user.id) else { return }
            switch outcome.status {
            case .success: try await engine.accounts.proveAddressAndSave(current, through: .registration("confirmation function"), caller: caller, in: tx)
            case .pending: return
            case .fail: if deleteOnFail { try await tx.users.delete(id: current.id) }
            }
        }
        if outcome.status == .fail { throw LatchkeyError.verificationFunctionRefused(email: email) }
    }

    /// Runs the verification function again for a pending user, with a fresh pair.
    public func retryConfirmation(appId: String, email rawEmail: String?, caller: CallerInfo) async throws {
        let app = try requireApp(appId)
        try await limit(.mailPerIP, caller.ip, caller: caller)
        let email = try engine.accounts.requireEmail(rawEmail)
        guard app.confirmation == .function else {
            throw LatchkeyError.noVerificationFunction(automatic: app.confirmation == .auto, email: email)
        }
        let (user, tokens) = try await transaction { tx -> (UserRecord, (token: String, tokenId: String)) in
            guard let user = try await tx.users.find(email: email) else { throw LatchkeyError.userNotFound }
            guard user.status == .pending else { throw LatchkeyError.userAlreadyConfirmed }
            return (user, try await engine.proofs.issueLinkToken(.confirmation, for: user, in: tx))
        }
        try await runConfirmationFunction(app, user: user, email: email, tokens: tokens, deleteOnFail: false, caller: caller)
    }

    func mailConfirmationLink(to user: UserRecord, app: AppServicesApp, caller: CallerInfo, in tx: any Repositories) async throws {
        guard let email = user.email else { return }
        let (token, tokenId) = try await engine.proofs.issueLinkToken(.confirmation, for: user, in: tx)
        let base = app.confirmationURL.isEmpty ? "\(settings.publicURL)/confirm" : app.confirmationURL
        try await engine.enqueue(engine.mailComposer.compose(.confirmationLink, to: email, link: engine.proofs.linkURL(base, token: token, tokenId: tokenId),
                                               validMinutes: settings.linkTokenTTLSeconds / 60,
                                               locale: engine.mailLocale(user.attributes, caller: caller),
                                               origin: MailOrigin(dialect: "app_services", clientId: app.id), at: time.now()), in: tx)
    }
}
