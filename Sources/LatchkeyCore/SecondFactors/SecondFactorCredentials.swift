import Foundation

/// Second factors as credentials of the account: enrolled and removed with an audit event and a mail to the
/// account, checked with every attempt counted against the account's lockout (in the database, so every replica
/// counts the same attempts, with the password lockout's back-off).
extension SecondFactors {
    /// How many recovery codes an authenticator comes with; each works once.
    static let recoveryCodeCount = 10

    /// The factors a code can be asked of (recovery codes are not listed as methods).
    func challengeableFactors(userId: String, in repositories: any Repositories) async throws -> [SecondFactorRecord] {
        try await repositories.secondFactors.secondFactors(userId: userId).filter { factor in
            factor.kind != .recovery && settings.mfa.methods.contains(factor.kind.method)
        }
    }

    /// A new authenticator factor holding `key`, sealed.
    func newTOTPFactor(userId: String, key: [UInt8]) -> SecondFactorRecord {
        SecondFactorRecord(id: SecureRandom.uuidString(), userId: userId, kind: .totp, secret: Data(keys.secondFactor.seal(key)),
                           createdAt: time.now())
    }

    /// Replaces the account's recovery codes with ten new ones; returns them (the only time they are readable).
    func replaceRecoveryCodes(userId: String, in tx: any Repositories) async throws -> [String] {
        _ = try await tx.secondFactors.deleteSecondFactors(userId: userId, kinds: [.recovery])
        let now = time.now()
        var codes: [String] = []
        for _ in 0..<Self.recoveryCodeCount {
            let raw = SecureRandom.alphanumeric(10).lowercased()
            let code = "\(raw.prefix(5))-\(raw.suffix(5))"
            codes.append(code)
            try await tx.secondFactors.insert(SecondFactorRecord(id: SecureRandom.uuidString(), userId: userId, kind: .recovery,
                                                                 secret: recoveryHash(code), createdAt: now))
        }
        return codes
    }

    /// Recovery codes are compared without case, dashes or spaces (people copy them by hand).
    private func recoveryHash(_ code: String) -> Data {
        engine.secretHash("recovery:" + code.lowercased().filter { $0 != "-" && $0 != " " })
    }

    /// Stores `factor` (a recovery code set comes separately), audits it and tells the account by mail.
    func enrol(_ factor: SecondFactorRecord, for user: UserRecord, caller: CallerInfo, in tx: any Repositories) async throws {
        try await tx.secondFactors.insert(factor)
        try await audit(tx, "mfa_enrolled", caller: caller, userId: user.id, email: user.email, detail: Self.describe(factor))
        EngineMetrics.secondFactor("enrolled", factor.kind)
        try await engine.mailOwner(.secondFactorAdded, user, what: Self.describe(factor), caller: caller, in: tx)
    }

    /// The first code from a newly offered authenticator `key`: the time step it matches. A wrong code counts against
    /// the account's lockout.
    func checkNewAuthenticatorCode(_ code: String?, key: [UInt8], user: UserRecord, caller: CallerInfo) async throws -> Int {
        guard let code, !code.isEmpty else { throw LatchkeyError.missing(.code) }
        let failures = try await countSecondFactorAttempt(user, caller: caller)
        guard let step = TOTP.matchingStep(key: key, code: code, at: time.now()) else {
            try await secondFactorFailed(user, failures: failures, what: "wrong code for a new authenticator", caller: caller)
            throw LatchkeyError.invalidCode(attemptsLeft: 1)
        }
        return step
    }

    /// Enrols the authenticator `key` whose first code matched `step` (that step cannot sign in again); returns the
    /// account's new recovery codes, readable this once.
    func enrolAuthenticator(_ key: [UInt8], step: Int, for user: UserRecord, caller: CallerInfo, in tx: any Repositories) async throws -> [String] {
        try await tx.users.clearPasswordAttempts(userId: user.id)
        guard !(try await tx.secondFactors.secondFactors(userId: user.id)).contains(where: { $0.kind == .totp }) else {
            throw LatchkeyError.secondFactor(.alreadyEnrolled)
        }
        var factor = newTOTPFactor(userId: user.id, key: key)
        factor.lastStep = step
        try await enrol(factor, for: user, caller: caller, in: tx)
        return try await replaceRecoveryCodes(userId: user.id, in: tx)
    }

    /// Removes the account's factors of `kinds` (all when nil); audited and mailed when there were any.
    @discardableResult
    func removeFactors(of user: UserRecord, kinds: [SecondFactorRecord.Kind]? = nil, reason: String, caller: CallerInfo,
                       in tx: any Repositories) async throws -> Int {
        let kinds = kinds ?? SecondFactorRecord.Kind.allCases
        let going = try await tx.secondFactors.secondFactors(userId: user.id).filter { kinds.contains($0.kind) && $0.kind != .recovery }
        let removed = try await tx.secondFactors.deleteSecondFactors(userId: user.id, kinds: kinds)
        guard removed > 0 else { return 0 }
        let what = going.isEmpty ? "recovery codes" : going.map(Self.describe).joined(separator: ", ")
        try await audit(tx, "mfa_removed", caller: caller, userId: user.id, email: user.email, detail: "\(what): \(reason)")
        EngineMetrics.secondFactor("removed", nil)
        try await engine.mailOwner(.secondFactorRemoved, user, what: what, caller: caller, in: tx)
        return removed
    }

    /// How a factor is named in audit events and mails: its kind and masked target, never a secret.
    static func describe(_ factor: SecondFactorRecord) -> String {
        switch factor.kind {
        case .email: "email \(EmailAddress.mask(factor.target ?? ""))"
        case .sms: "text message to \(maskPhone(factor.target ?? ""))"
        case .totp: "authenticator app"
        case .recovery: "recovery code"
        }
    }

    /// A phone number with all but its last two digits hidden.
    public static func maskPhone(_ number: String) -> String {
        let digits = number.filter(\.isNumber)
        return String(repeating: "*", count: max(digits.count - 2, 0)) + digits.suffix(2)
    }

    // MARK: Checks

    /// Counts one second-factor attempt against the account before any code is compared (so parallel guesses each
    /// take a slot); a locked account is refused. The count clears on a completed sign-in.
    func countSecondFactorAttempt(_ user: UserRecord, caller: CallerInfo) async throws -> Int {
        let now = time.now()
        switch try await engine.accounts.takeAttempt(userId: user.id, now: now) {
        case nil: throw LatchkeyError.secondFactorInvalid
        case .locked(let until)?:
            EngineMetrics.secondFactor("locked", nil)
            throw LatchkeyError.accountLocked(retryAfterSeconds: Int(until.timeIntervalSince(now).rounded(.up)))
        case .counted(let failures)?: return failures
        }
    }

    /// Audits a wrong second factor (and the lock, when this failure starts one).
    func secondFactorFailed(_ user: UserRecord, failures: Int, what: String, caller: CallerInfo) async throws {
        EngineMetrics.secondFactor("failed", nil)
        if engine.lockoutDelay(afterFailures: failures) != nil { EngineMetrics.lockouts.increment() }
        try await transaction { tx in
            if let delay = engine.lockoutDelay(afterFailures: failures) {
                try await self.audit(tx, "lockout", caller: caller, userId: user.id, email: user.email,
                                     detail: "\(failures) failures, locked for \(delay) s")
            }
            try await self.audit(tx, "mfa_failed", caller: caller, userId: user.id, email: user.email, detail: what)
        }
    }

    /// Whether `code` is the account authenticator's code for now (±1 step) or one of its recovery codes. A step is
    /// taken once (a replay within its window fails); a recovery code is used up. Audited, and counted against the
    /// lockout unless the request already counted its attempt (a login that checked the password just now: one
    /// login, one attempt).
    func checkAuthenticatorOrRecovery(_ code: String?, for user: UserRecord, alreadyCounted: Bool = false, caller: CallerInfo) async throws {
        let failures = alreadyCounted ? 0 : try await countSecondFactorAttempt(user, caller: caller)
        let code = (code ?? "").trimmingCharacters(in: .whitespaces)
        let factors = try await reader.secondFactors.secondFactors(userId: user.id)
        if let factor = factors.first(where: { $0.kind == .totp }), let key = factor.secret.flatMap({ keys.secondFactor.open([UInt8]($0)) }),
           let step = TOTP.matchingStep(key: key, code: code, at: time.now()) {
            if try await engine.standaloneWrite({ try await $0.secondFactors.acceptTOTPStep(factorId: factor.id, step: step) }) {
                EngineMetrics.secondFactor("passed", .totp)
                return
            }
            try await secondFactorFailed(user, failures: failures, what: "authenticator code used before", caller: caller)
            throw LatchkeyError.secondFactorInvalid
        }
        if code.count >= 10, code.count <= 64,
           try await engine.standaloneWrite({ try await $0.secondFactors.redeemRecoveryCode(userId: user.id, codeHash: self.recoveryHash(code)) }) {
            let left = factors.filter { $0.kind == .recovery }.count - 1
            try await transaction { tx in
                try await self.audit(tx, "mfa_recovery_code_used", caller: caller, userId: user.id, email: user.email,
                                     detail: "\(left) left")
            }
            EngineMetrics.secondFactor("passed", .recovery)
            return
        }
        try await secondFactorFailed(user, failures: failures, what: "wrong authenticator or recovery code", caller: caller)
        throw LatchkeyError.secondFactorInvalid
    }
}
