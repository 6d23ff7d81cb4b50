import Foundation

/// A Parse sign-up or login: the user and the session it opened. The token (`r:` + 32 hex) is handed out once; only
/// its HMAC is stored.
public struct ParseLogin: Sendable {
    public var user: UserRecord
    /// Nil when the app keeps unverified users out (`prevent_login_with_unverified_email`): the account exists, but
    /// no session is opened until its address is verified.
    public var sessionToken: String?
    /// Recovery codes of an authenticator enrolled during this login (`parse.apps[].mfa: required`), shown once.
    public var recoveryCodes: [String]?
    /// The account has a second factor: its `authData` shows `mfa: {status: enabled}`.
    public var secondFactorEnabled = false
}

/// Parse sessions: opaque, revocable, one per installation, `parse.session_ttl_seconds` long (a year by default).
extension ParseService {
    public func requireParseApp(_ id: String?) throws -> ParseApp {
        guard let id, let app = settings.parseApps.first(where: { $0.id == id }) else { throw LatchkeyError.unknownClient }
        return app
    }

    /// `POST users`: a username (required), an optional email, a password and custom fields; opens a session.
    /// `emailVerified` is the master key's to set (`.fieldNotWritable` otherwise); a new unverified address is mailed a
    /// verification link when the app verifies emails.
    public func parseSignUp(app: ParseApp, username rawUsername: String?, email rawEmail: String?, password: String?,
                            fields: [String: JSONValue], emailVerified: Bool? = nil, actor: ParseActor = .anonymous,
                            installationId: String?, caller: CallerInfo) async throws -> ParseLogin {
        try actor.requireMayWrite(emailVerified: emailVerified)
        // Parse Server asks for the username first, before it looks at anything else.
        guard let rawUsername, !rawUsername.isEmpty else {
            try await limit(.signUpPerIP, caller.ip, caller: caller)
            throw LatchkeyError.missing(.username)
        }
        let admitted = try await engine.accounts.admitSignUp(SignUpCandidate(email: rawEmail, emailRequired: false, username: rawUsername, password: password,
                                                             passwordRequired: true, provesMailbox: false), caller: caller)
        let (email, username, hash) = (admitted.email, admitted.username, admitted.passwordHash)
        return try await transaction { tx in
            let attributes = try await self.engine.accounts.checkCustomFields(fields, into: [:], app: app.id, in: tx)
            let user = try await self.engine.accounts.createAccount(NewAccount(email: email, username: username, passwordHash: hash, attributes: attributes,
                                                               emailVerified: email != nil && emailVerified == true, status: .active),
                                                    detail: "parse \(app.id)", caller: caller, in: tx)
            if app.verifyUserEmails, user.email != nil, !user.emailVerified {
                try await self.mailParseLink(.confirmation, to: user, app: app, caller: caller, in: tx)
            }
            return try await self.openParseSession(for: user, app: app, installationId: installationId, action: "signup", caller: caller, in: tx)
        }
    }

    /// `login`: `username` (which may be an email, as in Parse) or `email`, and the password.
    /// `secondFactor` is the body's `authData.mfa`: required once the account has a factor and the app's policy is on.
    public func parseLogin(app: ParseApp, username: String?, email: String?, password: String?, secondFactor: [String: String]? = nil,
                           installationId: String?, caller: CallerInfo) async throws -> ParseLogin {
        let (user, rehash) = try await parseAuthenticate(app: app, username: username, email: email, password: password, caller: caller)
        let step = try await parseSecondFactorAtLogin(app: app, user: user, fields: secondFactor, passwordCounted: true, caller: caller)
        var login = try await transaction { tx in
            guard let stored = try await tx.users.find(id: user.id) else { throw LatchkeyError.invalidCredentials }
            let current = try await self.engine.accounts.recordSignIn(stored, rehash: rehash, method: "parse password", amr: AuthenticationMethods.password, caller: caller, in: tx)
            return try await self.openParseSession(for: current, app: app, installationId: installationId, action: "login", caller: caller, in: tx)
        }
        login.recoveryCodes = step.recoveryCodes
        login.secondFactorEnabled = step.enabled
        return login
    }

    /// `verifyPassword`: the same checks, limits and lockout as `login`, but no session.
    public func parseVerifyPassword(app: ParseApp, username: String?, email: String?, password: String?,
                                    caller: CallerInfo) async throws -> UserRecord {
        let (user, _) = try await parseAuthenticate(app: app, username: username, email: email, password: password, caller: caller)
        try await engine.accounts.releasePasswordAttempt(userId: user.id)
        return user
    }

    /// `loginAs` (master key): a session for any active user, without password, lockout or verification checks.
    public func parseLoginAs(app: ParseApp, objectId: String, installationId: String?, caller: CallerInfo) async throws -> ParseLogin {
        try await transaction { tx in
            guard let user = try await tx.users.find(objectId: objectId), user.status == .active else { throw LatchkeyError.objectNotFound }
            try await self.audit(tx, "sign_in", caller: caller, userId: user.id, email: user.email, detail: "parse master key")
            return try await self.openParseSession(for: user, app: app, installationId: installationId, action: "login",
                                                   authProvider: "masterkey", caller: caller, in: tx)
        }
    }

    /// Every failure that could tell an attacker which part was wrong is the same `.invalidCredentials`; a correct
    /// password leaves its attempt counted for the caller to clear.
    private func parseAuthenticate(app: ParseApp, username: String?, email: String?, password: String?,
                                   caller: CallerInfo) async throws -> (UserRecord, rehash: String?) {
        guard (username?.isEmpty == false) || (email?.isEmpty == false) else { throw LatchkeyError.missing(.username) }
        guard let password, !password.isEmpty else { throw LatchkeyError.missing(.password) }
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        guard let user = try await findParseUser(username: username, email: email), user.status == .active else {
            try await engine.accounts.refuseAfterDummyCheck(password)
        }
        let rehash = try await engine.accounts.checkPassword(password, for: user, caller: caller)
        if keepsOut(user, app: app) {
            try await engine.accounts.releasePasswordAttempt(userId: user.id)
            throw LatchkeyError.userPendingConfirmation
        }
        return (user, rehash)
    }

    /// The live session behind a token, with its user: `.sessionInvalid` when unknown, revoked, of another app or of a
    /// user who can no longer sign in; `.sessionExpired` when its lifetime is over.
    public func parseSession(app: ParseApp, token: String) async throws -> (session: SessionRecord, user: UserRecord) {
        guard let (session, user) = try await engine.tokens.findSession(token: token),
              session.kind == .parse, session.audience == app.id, session.revokedAt == nil, user.status == .active else {
            throw LatchkeyError.sessionInvalid
        }
        guard session.expiresAt > time.now() else { throw LatchkeyError.sessionExpired }
        // A session opened before the address changed (or one another path opened) does not outlive the app's rule;
        // only the master key's `loginAs` is exempt, as it is from every sign-in check.
        if !session.scope.hasSuffix(":masterkey") && keepsOut(user, app: app) { throw LatchkeyError.userPendingConfirmation }
        return (session, user)
    }

    /// `logout`: ends the session.
    public func parseLogout(_ session: SessionRecord, caller: CallerInfo) async throws {
        try await transaction { tx in
            try await tx.sessions.revoke(familyId: session.familyId, at: self.time.now())
            try await self.audit(tx, "sign_out", caller: caller, userId: session.userId, detail: "parse \(session.audience)")
        }
    }

    /// `GET sessions`: the user's live sessions of this app, oldest first.
    public func parseSessions(app: ParseApp, of user: UserRecord) async throws -> [SessionRecord] {
        try await reader.sessions.live(userId: user.id, kind: .parse, audience: app.id, now: time.now())
    }

    /// `GET sessions/:id`: one live session of this app that the actor may see (its own; any with the master key).
    public func parseSession(app: ParseApp, id: String, actor: ParseActor) async throws -> SessionRecord {
        try await visibleParseSession(app: app, id: id, actor: actor, in: reader.sessions)
    }

    /// `DELETE sessions/:id`: ends one of the caller's sessions (any user's with the master key).
    public func parseEndSession(app: ParseApp, id: String, actor: ParseActor, caller: CallerInfo) async throws {
        try await transaction { tx in
            let session = try await self.visibleParseSession(app: app, id: id, actor: actor, in: tx.sessions)
            try await tx.sessions.revoke(familyId: session.familyId, at: self.time.now())
            try await self.audit(tx, "sign_out", caller: caller, userId: session.userId, detail: "parse \(app.id) session \(id)")
        }
    }

    private func visibleParseSession(app: ParseApp, id: String, actor: ParseActor, in sessions: any SessionRepository) async throws -> SessionRecord {
        guard let session = try await sessions.find(id: id), session.kind == .parse, session.audience == app.id,
              session.revokedAt == nil, session.expiresAt > time.now() else { throw LatchkeyError.objectNotFound }
        switch actor {
        case .master: return session
        case .user(let user, _) where user.id == session.userId: return session
        default: throw LatchkeyError.objectNotFound
        }
    }

    /// Parse's lookup: an email alone matches the email; a username matches the username, or the email when it is one.
    private func findParseUser(username: String?, email: String?) async throws -> UserRecord? {
        if let email, !email.isEmpty {
            guard let normalized = EmailAddress.normalize(email), let user = try await reader.users.find(email: normalized) else { return nil }
            if let username, !username.isEmpty, user.username.map(UserRecord.usernameKey) != UserRecord.usernameKey(username) { return nil }
            return user
        }
        guard let username else { return nil }
        // An address matches its owner first: a username equal to someone else's address never wins their sign-in.
        if let address = EmailAddress.normalize(username), let user = try await reader.users.find(email: address) { return user }
        return try await reader.users.find(username: username)
    }

    /// Whether the app keeps this user out until the address is verified (Parse's `preventLoginWithUnverifiedEmail`):
    /// the one rule for every path that opens or uses a session of the app.
    func keepsOut(_ user: UserRecord, app: ParseApp) -> Bool {
        app.preventLoginWithUnverifiedEmail && app.verifyUserEmails && user.email != nil && !user.emailVerified
    }

    /// A new session (none when the app keeps the user out: the token is nil then); the user's other sessions from the same installation end (one per installation, as Parse).
    /// The session's `scope` keeps Parse's `createdWith` as `action:authProvider`.
    func openParseSession(for user: UserRecord, app: ParseApp, installationId: String?, action: String, authProvider: String = "password",
                          caller: CallerInfo, in tx: any Repositories) async throws -> ParseLogin {
        if authProvider != "masterkey" && keepsOut(user, app: app) { return ParseLogin(user: user, sessionToken: nil) }
        let now = time.now()
        if let installationId, !installationId.isEmpty {
            try await tx.sessions.revoke(userId: user.id, kind: .parse, deviceId: installationId, at: now)
        }
        let token = "r:" + SecureRandom.bytes(16).hex
        let id = SecureRandom.alphanumeric(10)
        let session = SessionRecord(id: id, familyId: id, userId: user.id, kind: .parse, audience: app.id, scope: "\(action):\(authProvider)",
                                    tokenHash: engine.tokens.sessionKey(token), createdAt: now,
                                    expiresAt: now + Double(settings.parseSessionTTLSeconds), deviceId: installationId,
                                    ip: caller.ip, userAgent: caller.userAgent)
        try await tx.sessions.insert(session)
        return ParseLogin(user: user, sessionToken: token)
    }
}

extension Optional {
    func asyncFlatMap<U>(_ transform: (Wrapped) async throws -> U?) async rethrows -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }

    func asyncMap<U>(_ transform: (Wrapped) async throws -> U) async rethrows -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
