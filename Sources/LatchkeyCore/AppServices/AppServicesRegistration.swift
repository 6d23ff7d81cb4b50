import Foundation

/// Registration with an email and a password, verified the way the app is configured to (automatically, by
/// mailed link, or by the operator's function). The App Services dialect's email/password provider uses it.
extension AppServicesService {

    public func register(appId: String, email rawEmail: String?, password: String?, caller: CallerInfo) async throws {
        let app = try requireApp(appId)
        let admitted = try await engine.accounts.admitSignUp(SignUpCandidate(email: rawEmail, emailRequired: true, username: nil, password: password,
                                                             passwordRequired: true, provesMailbox: false), caller: caller)
        let email = admitted.email ?? "", hash = admitted.passwordHash
        let confirmed = app.confirmation == .auto
        let (user, pair) = try await transaction { tx -> (UserRecord, (token: String, tokenId: String)?) in
            // Auto-confirmation activates the account but proves nothing about the mailbox: email_verified stays
            // false until its owner signs in by emailed code.
            let user = try await engine.accounts.createAccount(NewAccount(email: email, passwordHash: hash, emailVerified: false,
                                                               status: confirmed ? .active : .pending),
                                                    detail: "app_services \(app.confirmation.rawValue)", caller: caller, in: tx)
            switch app.confirmation {
            case .auto: return (user, nil)
            case .email: try await self.mailConfirmationLink(to: user, app: app, caller: caller, in: tx); return (user, nil)
            case .function: return (user, try await engine.proofs.issueLinkToken(.confirmation, for: user, in: tx))
            }
        }
        if let pair {
            try await runConfirmationFunction(app, user: user, email: email, tokens: pair, deleteOnFail: true, caller: caller)
        }
    }
}
