import Foundation

/// The one password check, and what every successful sign-in records, for every dialect.
extension AccountRules {
    /// Checks `password` for `user`. Returns a new hash when the cost changed; a wrong password is
    /// `.invalidCredentials`. A match leaves the attempt counted: the caller's sign-in clears it.
    func checkPassword(_ password: String, for user: UserRecord, caller: CallerInfo) async throws -> String? {
        switch try await countedPasswordCheck(password, for: user, caller: caller) {
        case .match: return nil
        case .matchNeedsRehash: return try await passwords.hash(password)
        case .mismatch: throw LatchkeyError.invalidCredentials
        }
    }

    /// The attempt is counted (and the lock read) in one conditional write *before* scrypt runs, so guesses sent in
    /// parallel each take a slot and the lock holds however many arrive at once. A wrong password is audited (and
    /// the lock, when it starts).
    func countedPasswordCheck(_ password: String, for user: UserRecord, caller: CallerInfo) async throws -> PasswordHasher.Verdict {
        guard let phc = user.passwordHash else { try await refuseAfterDummyCheck(password) }
        let now = time.now()
        let attempt = try await takeAttempt(userId: user.id, now: now)
        let failures: Int
        switch attempt {
        case nil: throw LatchkeyError.invalidCredentials
        case .locked(let until)?:
            EngineMetrics.signIn(caller.dialect, "locked")
            throw LatchkeyError.accountLocked(retryAfterSeconds: Int(until.timeIntervalSince(now).rounded(.up)))
        case .counted(let count)?: failures = count
        }
        let verdict: PasswordHasher.Verdict
        if let source = LegacyPassword.source(of: phc) {
            verdict = try await legacyVerdict(password, for: user, source: source, caller: caller)
        } else {
            verdict = try await passwords.verify(password, against: phc)
        }
        if verdict == .mismatch {
            EngineMetrics.signIn(caller.dialect, "wrong_password")
            if engine.lockoutDelay(afterFailures: failures) != nil { EngineMetrics.lockouts.increment() }
            try await transaction { tx in
                if let delay = engine.lockoutDelay(afterFailures: failures) {
                    let until = (now + Double(delay)).formatted(.iso8601)
                    try await self.audit(tx, "lockout", caller: caller, userId: user.id, email: user.email,
                                         detail: "\(failures) failures, locked until \(until)")
                    // The first lock of a run is mailed (later ones only lengthen it): the pages do not say it.
                    if engine.lockoutDelay(afterFailures: failures - 1) == nil, let email = user.email {
                        try await engine.enqueue(engine.mailComposer.compose(.accountLocked, to: email, validMinutes: max(1, delay / 60),
                                                                         locale: engine.mailLocale(user.attributes, caller: caller), at: now), in: tx)
                    }
                }
                try await self.audit(tx, "sign_in_failed", caller: caller, userId: user.id, email: user.email, detail: "wrong password")
            }
        }
        return verdict
    }

    /// Counts one attempt at a credential of the account (a password, a second factor) and starts the lock when
    /// this attempt reaches it, in one write: parallel guesses each take a slot. Nil when the account is gone.
    func takeAttempt(userId: String, now: Date) async throws -> PasswordAttempt? {
        try await transaction { tx -> PasswordAttempt? in
            let attempt = try await tx.users.takePasswordAttempt(userId: userId, now: now)
            if case .counted(let failures)? = attempt, let delay = engine.lockoutDelay(afterFailures: failures) {
                try await tx.users.lock(userId: userId, until: now + Double(delay))
            }
            return attempt
        }
    }

    /// Refuses a sign-in for an account that cannot pass (unknown, without a password, disabled) only after checking
    /// the password against a dummy hash of the configured cost: the answer takes as long as for a real account, so
    /// its timing does not tell which accounts exist.
    func refuseAfterDummyCheck(_ password: String) async throws -> Never {
        try await passwords.spendOneCheck(password)
        throw LatchkeyError.invalidCredentials
    }

    /// Gives back the slot a matching password took when no sign-in follows (a pending account, a recovery function).
    func releasePasswordAttempt(userId: String) async throws {
        try await transaction { tx in try await tx.users.clearPasswordAttempts(userId: userId) }
    }

    /// What a sign-in without a password records (the time, the audit event; the failure count and lock cleared), to be
    /// written with the write the sign-in makes anyway (its session, its passkey's use); `user` is left as the account
    /// will read. `recordSignIn`'s rules, for sign-ins that need no transaction.
    func signInNote(_ user: inout UserRecord, method: String, amr: [String], caller: CallerInfo) -> SessionNote {
        let now = time.now()
        user.lastLoginAt = now
        user.failedLoginCount = 0
        user.lockedUntil = nil
        return SessionNote(event: engine.auditEvent("sign_in", caller: caller, userId: user.id, email: user.email,
                                                    detail: AuthenticationMethods.auditDetail(method, amr), at: now), signIn: true)
    }

    /// What every successful sign-in does, in any dialect: clear the failure count and lock, store an
    /// upgraded hash, note the time, audit.
    func recordSignIn(_ user: UserRecord, rehash: String?, method: String, amr: [String], caller: CallerInfo,
                      in tx: any Repositories) async throws -> UserRecord {
        // Disabled by an operator between the password check and now: no session.
        guard user.status != .disabled else { throw LatchkeyError.invalidCredentials }
        var user = user
        let now = time.now()
        if let rehash { user.passwordHash = rehash }
        user.failedLoginCount = 0
        user.lockedUntil = nil
        user.lastLoginAt = now
        user.updatedAt = now
        try await tx.users.update(user)
        try await audit(tx, "sign_in", caller: caller, userId: user.id, email: user.email, detail: AuthenticationMethods.auditDetail(method, amr))
        EngineMetrics.signIn(caller.dialect, "success")
        return user
    }
}
