import Foundation

/// Signing in to the console as an account with the `operator` role: the console is a public client of this very
/// provider (`latchkey-console`, PKCE, first party, a second factor required), so the hosted pages, their limits and
/// the account's second factor apply; the code is redeemed inside the process.
extension OperatorService {
    public static let consoleClientId = "latchkey-console"

    /// The built-in client, registered when the console is on; its redirect URI is the console's `/console/callback`.
    public static func consoleClient(redirectURI: String) -> ClientApplication {
        ClientApplication(id: consoleClientId, name: "Latchkey console", mfa: .required, redirectURIs: [redirectURI], firstParty: true)
    }

    public enum ConsoleSignInRefusal: Error, Sendable, Equatable {
        /// The callback's state is not the one this browser's sign-in began with (or it expired).
        case stateMismatch
        /// The account signed in, but it does not hold the `operator` role.
        case notAnOperator
        /// The console's client is not registered (the console is off).
        case consoleOff
    }

    /// Where to send the browser to sign in, and the sealed cookie that must come back with the callback.
    public func startConsoleSignIn(redirectURI: String, next: String?) -> (authorizeURL: String, cookie: String) {
        FirstPartySignIn.start(clientId: Self.consoleClientId, redirectURI: redirectURI, scope: "openid offline_access", next: next,
                               sealedWith: keys.consoleSession, settings: settings, now: time.now())
    }

    /// Redeems the callback's code for an account that holds `operator`: a new console session, and where to go.
    public func finishConsoleSignIn(code: String?, state: String?, cookie: String?, redirectURI: String,
                                    caller: CallerInfo) async throws -> (session: ConsoleSession, next: String?) {
        guard let started = FirstPartySignIn.open(cookie: cookie, state: state, sealedWith: keys.consoleSession, now: time.now()) else {
            throw ConsoleSignInRefusal.stateMismatch
        }
        guard let client = engine.client(id: Self.consoleClientId) else { throw ConsoleSignInRefusal.consoleOff }
        let tokens = try await engine.tokens.exchangeAuthorizationCode(code: code, redirectUri: redirectURI, codeVerifier: started.verifier, client: client,
                                                         caller: caller)
        guard let user = try await reader.users.find(id: tokens.userId) else { throw AdminError.userNotFound }
        let family = try await tokens.refreshToken.asyncMap { try await reader.sessions.find(tokenHash: engine.tokens.sessionKey($0))?.familyId } ?? nil
        guard try await reader.users.roles(userId: user.id).contains(where: { $0.role == UserRole.operatorRole }) else {
            // The sign-in gave the console nothing to keep: its tokens go, with the refusal on the record.
            try await transaction { tx in
                if let family { try await tx.sessions.revoke(familyId: family, at: self.time.now()) }
                try await self.audit(tx, "admin.console_refused", caller: caller, userId: user.id, email: user.email, detail: "not an operator")
            }
            throw ConsoleSignInRefusal.notAnOperator
        }
        let now = time.now()
        let session = ConsoleSession(id: SecureRandom.token(byteCount: 16), operatorName: user.email ?? user.username ?? user.id,
                                     startedAt: now, seenAt: now, credential: consoleBinding(Self.accountCredential(user.id)),
                                     userId: user.id, familyId: family)
        try await auditConsoleSignIn(caller: consoleCaller(session, ip: caller.ip, userAgent: caller.userAgent))
        return (session, started.next)
    }

    /// Whether an account's console session still stands: the account is active, holds `operator`, and the
    /// refresh-token family its sign-in started is live (revoking the account's sessions ends it).
    public func consoleAccountHolds(_ session: ConsoleSession) async throws -> Bool {
        guard let userId = session.userId else { return true }
        guard let user = try await reader.users.find(id: userId), user.status == .active,
              try await reader.users.roles(userId: userId).contains(where: { $0.role == UserRole.operatorRole }) else { return false }
        guard let family = session.familyId else { return true }
        return try await reader.sessions.live(userId: userId, now: time.now()).contains { $0.familyId == family }
    }
}

