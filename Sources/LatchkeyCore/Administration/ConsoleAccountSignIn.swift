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

    /// What the console's sign-in carries through the browser: sealed into a short-lived cookie.
    struct ConsoleSignInState: Codable {
        var state: String
        var verifier: String
        var next: String?
        var expiresAt: Date
    }

    /// Where to send the browser to sign in, and the sealed cookie that must come back with the callback.
    public func startConsoleSignIn(redirectURI: String, next: String?) -> (authorizeURL: String, cookie: String) {
        let verifier = SecureRandom.token(byteCount: 32), state = SecureRandom.token(byteCount: 16)
        let sealed = ConsoleSignInState(state: state, verifier: verifier, next: next,
                                        expiresAt: time.now() + Double(settings.openID.interactionTTLSeconds))
        // Encoding a plain Codable struct cannot fail.
        let cookie = Base64URL.encode(keys.consoleSession.seal(Array((try? JSONEncoder().encode(sealed)) ?? Data())))
        let url = PagesService.redirect("\(settings.publicURL)/oauth2/v2.0/authorize", [
            "client_id": Self.consoleClientId, "redirect_uri": redirectURI, "response_type": "code", "scope": "openid offline_access",
            "state": state, "code_challenge": Base64URL.encode(Digest.sha256(Array(verifier.utf8))), "code_challenge_method": "S256",
        ])
        return (url, cookie)
    }

    /// Redeems the callback's code for an account that holds `operator`: a new console session, and where to go.
    public func finishConsoleSignIn(code: String?, state: String?, cookie: String?, redirectURI: String,
                                    caller: CallerInfo) async throws -> (session: ConsoleSession, next: String?) {
        guard let cookie, cookie.utf8.count <= 2048, let sealed = Base64URL.decode(cookie), let plain = keys.consoleSession.open(sealed),
              let started = try? JSONDecoder().decode(ConsoleSignInState.self, from: Data(plain)), started.expiresAt > time.now(),
              let state, Digest.constantTimeEqual(Array(state.utf8), Array(started.state.utf8)) else {
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

