import Foundation

public enum SignInInitiateResult: Sendable, Equatable {
    case started(continuationToken: String)
    case redirect
}

/// Sign-in: by password when the account has one and the client can ask for it, else by emailed code.
extension LatchkeyEngine {
    public func signInInitiate(username: String?, challengeTypes: String?, caller: CallerInfo) async throws -> SignInInitiateResult {
        let (client, email, types) = try await beginFlow(.signInPerIP, username: username, challengeTypes: challengeTypes, caller: caller)
        guard let user = try await store.read({ try $0.user(email: email) }), user.status == .active else {
            throw LatchkeyError.userNotFound
        }
        guard types.oob || (types.password && user.passwordHash != nil) else { return .redirect }
        let state = FlowState(stage: .started, clientId: client.id, acceptsCode: types.oob, acceptsPassword: types.password)
        let token = try await transaction { tx in
            try self.newFlow(.signIn, email: email, userId: user.id, state: state, in: tx)
        }
        return .started(continuationToken: token)
    }

    /// Answers `password` for accounts with one (when the client accepts it); otherwise mails a code.
    /// Calling it again on a code flow resends.
    public func signInChallenge(continuationToken: String?, challengeTypes: String?, caller: CallerInfo) async throws -> ChallengeResult {
        _ = try requireClient(caller.clientId)
        let types = try ChallengeTypes.parse(challengeTypes)
        return try await transaction { tx -> Result<ChallengeResult, LatchkeyError> in
            var flow = try self.loadFlow(continuationToken, kind: .signIn, client: caller.clientId, in: tx)
            guard let userId = flow.userId, let user = try tx.user(id: userId), user.status == .active else {
                throw LatchkeyError.userNotFound
            }
            switch flow.state.stage {
            case .started, .codeSent, .passwordChallenged:
                if user.passwordHash != nil && types.password {
                    flow.state.stage = .passwordChallenged
                    return .success(.password(continuationToken: try self.advance(flow, in: tx)))
                }
                guard types.oob else { return .success(.redirect) }
                if let limited = try self.limit(.mailPerIP, caller.ip, caller: caller, in: tx)
                    ?? self.limit(.mailPerAddress, flow.email, caller: caller, in: tx) { return .failure(limited) }
                let challenge = try self.issueCode(for: flow, mail: .signInCode,
                                                    locale: self.mailLocale(user.attributes, caller: caller), in: tx)
                flow.state.stage = .codeSent
                return .success(.code(challenge, continuationToken: try self.advance(flow, in: tx)))
            default:
                throw LatchkeyError.flowStepMismatch("this sign-in is not waiting for a challenge")
            }
        }.get()
    }

    /// `grant_type=password`. A wrong password keeps the continuation token usable for another try.
    public func signInWithPassword(continuationToken: String?, username: String?, password: String?, scope: String?,
                                   caller: CallerInfo) async throws -> TokenSet {
        let client = try requireClient(caller.clientId)
        guard let password, !password.isEmpty else { throw LatchkeyError.missingParameter("password") }
        _ = try grantedScopes(scope, client: client)  // before the password is checked, so a bad scope costs no attempt
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        let (flow, user) = try await store.read { tx -> (FlowRecord, UserRecord) in
            let flow = try self.loadFlow(continuationToken, kind: .signIn, client: caller.clientId, in: tx)
            guard flow.state.stage == .passwordChallenged else {
                throw LatchkeyError.flowStepMismatch("this sign-in is not waiting for a password")
            }
            guard let id = flow.userId, let user = try tx.user(id: id), user.status == .active else { throw LatchkeyError.userNotFound }
            return (flow, user)
        }
        if let username, EmailAddress.normalize(username) != flow.email { throw LatchkeyError.invalidCredentials }
        let rehash = try await checkPassword(password, for: user, caller: caller)
        return try await transaction { tx in
            let live = try self.loadFlow(continuationToken, kind: .signIn, client: caller.clientId, in: tx)
            guard var current = try tx.user(id: user.id) else { throw LatchkeyError.userNotFound }
            if let rehash { current.passwordHash = rehash }
            try tx.deleteFlow(id: live.id)
            return try self.completeSignIn(current, client: client, scope: scope, method: "password", caller: caller, in: tx)
        }
    }

    /// Checks `password` for `user`, for every dialect. Returns a new hash when the cost changed; a wrong
    /// password is `.invalidCredentials`. A match leaves the attempt counted: the caller's sign-in clears it.
    func checkPassword(_ password: String, for user: UserRecord, caller: CallerInfo) async throws -> String? {
        switch try await countedPasswordCheck(password, for: user, caller: caller) {
        case .match: return nil
        case .matchNeedsRehash: return try await hashPassword(password)
        case .mismatch: throw LatchkeyError.invalidCredentials
        }
    }

    /// The one password check: the lock is read and the attempt counted in one write transaction *before*
    /// scrypt runs, so guesses sent in parallel each take a slot and the lock holds however many arrive at
    /// once. A wrong password is audited (and the lock, when it starts).
    func countedPasswordCheck(_ password: String, for user: UserRecord, caller: CallerInfo) async throws -> PasswordHasher.Verdict {
        guard let phc = user.passwordHash else { throw LatchkeyError.invalidCredentials }
        let (failures, lockedUntil) = try await transaction { tx -> Result<(Int, Date?), LatchkeyError> in
            guard var current = try tx.user(id: user.id) else { return .failure(.invalidCredentials) }
            let now = self.time.now()
            if let until = current.lockedUntil, until > now {
                return .failure(.rateLimited(retryAfterSeconds: Int(until.timeIntervalSince(now).rounded(.up))))
            }
            current.failedLoginCount += 1
            current.updatedAt = now
            if let delay = self.lockoutDelay(afterFailures: current.failedLoginCount) { current.lockedUntil = now + Double(delay) }
            try tx.update(user: current)
            return .success((current.failedLoginCount, current.lockedUntil))
        }.get()
        let verdict = try await verifyPassword(password, against: phc)
        if verdict == .mismatch {
            try await transaction { tx in
                if let lockedUntil {
                    try self.audit(tx, "lockout", caller: caller, userId: user.id, email: user.email,
                                   detail: "\(failures) failures, locked until \(ISO8601DateFormatter().string(from: lockedUntil))")
                }
                try self.audit(tx, "sign_in_failed", caller: caller, userId: user.id, email: user.email, detail: "wrong password")
            }
        }
        return verdict
    }

    /// Gives back the slot a matching password took when no sign-in follows (a pending account, `reset/call`).
    func releasePasswordAttempt(userId: String) async throws {
        try await transaction { tx in
            guard var current = try tx.user(id: userId) else { return }
            current.failedLoginCount = 0
            current.lockedUntil = nil
            try tx.update(user: current)
        }
    }

    /// `grant_type=oob` with the mailed code.
    public func signInWithCode(continuationToken: String?, code: String?, scope: String?, caller: CallerInfo) async throws -> TokenSet {
        let client = try requireClient(caller.clientId)
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        return try await transaction { tx -> Result<TokenSet, LatchkeyError> in
            let flow = try self.loadFlow(continuationToken, kind: .signIn, client: caller.clientId, in: tx)
            guard flow.state.stage == .codeSent else { throw LatchkeyError.flowStepMismatch("no code was sent for this sign-in") }
            if let limited = try self.limit(.codePerAccount, flow.email, caller: caller, in: tx) { return .failure(limited) }
            guard let id = flow.userId, var user = try tx.user(id: id), user.status == .active else { throw LatchkeyError.userNotFound }
            if let failure = try self.checkCode(code, for: flow, in: tx) {
                try self.audit(tx, "sign_in_failed", caller: caller, userId: user.id, email: user.email, detail: "wrong code")
                return .failure(failure)
            }
            if !user.emailVerified {
                // The mailbox's owner proves it now. A password set by whoever registered the address without
                // proving it (confirmation: auto) is not theirs: it goes, and so do that registrant's sessions.
                user.emailVerified = true
                user.passwordHash = nil
                try tx.revokeRefreshTokens(userId: user.id, at: self.time.now())
                try self.audit(tx, "email_verified", caller: caller, userId: user.id, email: user.email, detail: "code sign-in; unproven password dropped")
            }
            try tx.deleteFlow(id: flow.id)
            return .success(try self.completeSignIn(user, client: client, scope: scope, method: "code", caller: caller, in: tx))
        }.get()
    }

    /// `grant_type=continuation_token`: sign-in right after a completed sign-up (or password reset). Single use.
    public func signInWithContinuationToken(continuationToken: String?, username: String?, scope: String?,
                                            caller: CallerInfo) async throws -> TokenSet {
        let client = try requireClient(caller.clientId)
        guard let continuationToken, !continuationToken.isEmpty else { throw LatchkeyError.missingParameter("continuation_token") }
        return try await transaction { tx in
            guard let flow = try tx.flow(tokenHash: self.secretHash(continuationToken)),
                  flow.kind != .signIn, flow.state.stage == .completed, let userId = flow.userId,
                  flow.state.clientId.caseInsensitiveCompare(client.id) == .orderedSame else {
                throw LatchkeyError.flowTokenInvalid
            }
            guard flow.expiresAt > self.time.now() else { throw LatchkeyError.flowTokenExpired }
            if let username, EmailAddress.normalize(username) != flow.email { throw LatchkeyError.flowTokenInvalid }
            guard let user = try tx.user(id: userId), user.status == .active else { throw LatchkeyError.userNotFound }
            try tx.deleteFlow(id: flow.id)
            return try self.completeSignIn(user, client: client, scope: scope, method: "continuation_token", caller: caller, in: tx)
        }
    }

    private func completeSignIn(_ user: UserRecord, client: ClientApplication, scope: String?, method: String,
                                caller: CallerInfo, in tx: any StoreWriting) throws -> TokenSet {
        let user = try recordSignIn(user, rehash: nil, method: method, caller: caller, in: tx)
        return try issueTokens(for: user, client: client, scope: scope, familyId: nil, in: tx)
    }

    /// What every successful sign-in does, in any dialect: clear the failure count and lock, store an
    /// upgraded hash, note the time, audit.
    func recordSignIn(_ user: UserRecord, rehash: String?, method: String, caller: CallerInfo,
                      in tx: any StoreWriting) throws -> UserRecord {
        var user = user
        let now = time.now()
        if let rehash { user.passwordHash = rehash }
        user.failedLoginCount = 0
        user.lockedUntil = nil
        user.lastLoginAt = now
        user.updatedAt = now
        try tx.update(user: user)
        try audit(tx, "sign_in", caller: caller, userId: user.id, email: user.email, detail: method)
        return user
    }
}
