import Foundation

/// Parse's `authData.mfa`, as Parse Server's `mfa` adapter answers it: enrol an authenticator with `{secret, token}`
/// (or change it with `old`), a phone with `{mobile}` then `{mobile, token}`, log in with `{token}` (an authenticator
/// code, a recovery code, or a texted code after `{token: "request"}`). Unlike Parse Server, a recovery code works
/// once, and turning the factor off needs a valid code (or the master key).
/// A change to a Parse user's second factor that its checks allowed, written in the user update's transaction.
public enum ParseSecondFactorWrite: Sendable {
    case remove(reason: String)
    case phone(String)
    case authenticator(key: [UInt8], step: Int)
}

extension ParseService {
    /// What the second factor of a Parse login came to.
    struct ParseSecondFactorStep {
        var enabled = false
        var recoveryCodes: [String]?
    }

    /// The kinds a Parse client can answer: authenticator (and its recovery codes) and text messages.
    private static let parseKinds: Set<SecondFactorRecord.Kind> = [.totp, .sms]
    /// The same, as the assurance rule counts them.
    private static let parseRunnable: Set<StrongFactor> = [.authenticator, .textedCode]
    /// What turning Parse's factor off removes (an email factor enrolled natively stays).
    private static let parseRemovable: [SecondFactorRecord.Kind] = [.totp, .sms, .recovery]

    /// Checked after the first factor: nothing to do, a factor passed, or (`required`) an authenticator enrolled now.
    /// `passwordCounted`: the login's password check already counted this attempt against the lockout.
    func parseSecondFactorAtLogin(app: ParseApp, user: UserRecord, fields: [String: String]?, passwordCounted: Bool = false,
                                  caller: CallerInfo) async throws -> ParseSecondFactorStep {
        guard app.mfa != .off else {
            if fields != nil { throw LatchkeyError.secondFactor(.methodNotEnabled("mfa")) }
            return ParseSecondFactorStep()
        }
        let factors = try await engine.factors.challengeableFactors(userId: user.id, in: reader).filter { Self.parseKinds.contains($0.kind) }
        // A factor Parse's wire cannot prove (a passkey, a mailed code) is never treated as none.
        let verdict = try await engine.accounts.assurance(.signIn(app.mfa, runnable: Self.parseRunnable), for: user,
                                                          proved: SessionProof(amr: AuthenticationMethods.password, authTime: nil), in: reader)
        if verdict == .notHere { throw LatchkeyError.secondFactor(.noUsableMethod) }
        if factors.isEmpty {
            guard app.mfa == .required else { return ParseSecondFactorStep() }
            // No factor yet and the app requires one: this login enrols an authenticator, or fails.
            guard let fields, fields["secret"] != nil else { throw LatchkeyError.secondFactorRequired }
            return ParseSecondFactorStep(enabled: true, recoveryCodes: try await parseEnrolAuthenticator(fields, user: user, caller: caller))
        }
        guard let token = fields?["token"], !token.isEmpty else { throw LatchkeyError.secondFactorRequired }
        try await parseCheck(token, factors: factors, user: user, app: app, alreadyCounted: passwordCounted, caller: caller)
        try await transaction { tx in
            try await self.audit(tx, "mfa_passed", caller: caller, userId: user.id, email: user.email, detail: "parse")
        }
        return ParseSecondFactorStep(enabled: true)
    }

    /// `PUT users/:id` with `authData.mfa`: every check (and its count against the lockout) now, outside any transaction
    /// (a texted code goes out here); the write it allows is applied by `parseUpdateUser` in the update's one
    /// transaction, so a refused field leaves the factor as it was. Nil: nothing to write.
    public func parsePrepareSecondFactor(app: ParseApp, objectId: String, fields: [String: String]?, actor: ParseActor,
                                         caller: CallerInfo) async throws -> ParseSecondFactorWrite? {
        let user = try await actor.writableUser(objectId: objectId, in: reader.users)
        guard app.mfa != .off else { throw LatchkeyError.secondFactor(.methodNotEnabled("mfa")) }
        let factors = try await engine.factors.challengeableFactors(userId: user.id, in: reader).filter { Self.parseKinds.contains($0.kind) }
        guard let fields else {
            // `null`: the master key turns it off; a user proves a factor first (`{token, disable: "true"}`).
            guard case .master = actor else { throw LatchkeyError.secondFactorInvalid }
            return .remove(reason: "parse master key")
        }
        // What a read showed, sent back (ParseSwift echoes the user's `authData`): nothing changes.
        if fields.keys.sorted() == ["status"] { return nil }
        if fields["disable"] == "true" {
            guard !factors.isEmpty else { return nil }
            try await parseProve(fields["token"], factors: factors, user: user, app: app, actor: actor, caller: caller)
            return .remove(reason: "parse")
        }
        // An account whose second factor Parse cannot prove (a passkey, a mailed code) adds none here on the password.
        if case .user = actor, factors.isEmpty, try await !engine.accounts.holdings(of: user, in: reader).strong.isEmpty {
            throw LatchkeyError.secondFactor(.stepUpNeeded)
        }
        if let mobile = fields["mobile"] {
            guard settings.mfa.methods.contains(.sms) else { throw LatchkeyError.secondFactor(.methodNotEnabled("sms")) }
            guard let number = SecondFactors.phoneNumber(mobile) else { throw LatchkeyError.secondFactor(.invalidContact) }
            guard let token = fields["token"] else {
                guard factors.isEmpty else { throw LatchkeyError.secondFactor(.alreadyEnrolled) }
                try await parseSendPendingCode(.enrol, to: number, user: user, app: app, caller: caller)
                return nil
            }
            guard try await pendingTarget(.enrol, user: user) == number else { throw LatchkeyError.secondFactor(.notPending) }
            guard try await redeemPendingCode(.enrol, user: user, target: number, code: token) else { throw LatchkeyError.secondFactorInvalid }
            return .phone(number)
        }
        // An authenticator: a change must prove the current factor with `old` (the master key need not).
        if !factors.isEmpty, fields["secret"] != nil {
            try await parseProve(fields["old"], factors: factors, user: user, app: app, actor: actor, caller: caller)
        }
        return try await parseCheckNewAuthenticator(fields, user: user, caller: caller)
    }

    /// Writes what `parsePrepareSecondFactor` allowed; new recovery codes when an authenticator was (re)enrolled.
    func apply(_ write: ParseSecondFactorWrite, to user: UserRecord, caller: CallerInfo, in tx: any Repositories) async throws -> [String]? {
        switch write {
        case .remove(let reason):
            _ = try await engine.factors.removeFactors(of: user, kinds: Self.parseRemovable, reason: reason, caller: caller, in: tx)
            return nil
        case .phone(let number):
            _ = try await engine.factors.removeFactors(of: user, kinds: [.sms], reason: "replaced", caller: caller, in: tx)
            try await engine.factors.enrol(SecondFactorRecord(id: SecureRandom.uuidString(), userId: user.id, kind: .sms, target: number,
                                               createdAt: time.now()), for: user, caller: caller, in: tx)
            return nil
        case .authenticator(let key, let step):
            try await tx.users.clearPasswordAttempts(userId: user.id)
            _ = try await engine.factors.removeFactors(of: user, kinds: [.totp, .recovery], reason: "replaced", caller: caller, in: tx)
            var factor = engine.factors.newTOTPFactor(userId: user.id, key: key)
            factor.lastStep = step  // the code that proved it cannot sign in as well
            try await engine.factors.enrol(factor, for: user, caller: caller, in: tx)
            return try await engine.factors.replaceRecoveryCodes(userId: user.id, in: tx)
        }
    }

    /// Checks `{secret, token}` for a new authenticator (counted against the lockout); the write that enrols it.
    private func parseCheckNewAuthenticator(_ fields: [String: String], user: UserRecord, caller: CallerInfo) async throws -> ParseSecondFactorWrite {
        guard settings.mfa.methods.contains(.totp) else { throw LatchkeyError.secondFactor(.methodNotEnabled("totp")) }
        guard let secret = fields["secret"], secret.count >= 20, secret.count <= 256, let key = Base32.decode(secret), key.count >= 10,
              let token = fields["token"] else {
            throw LatchkeyError.secondFactor(.invalidData)
        }
        let failures = try await engine.factors.countSecondFactorAttempt(user, caller: caller)
        guard let step = TOTP.matchingStep(key: key, code: token, at: time.now()) else {
            try await engine.factors.secondFactorFailed(user, failures: failures, what: "wrong code for a new authenticator", caller: caller)
            throw LatchkeyError.secondFactorInvalid
        }
        return .authenticator(key: key, step: step)
    }

    /// A login that enrols the authenticator an app's `required` policy asks for: checked, then written at once.
    private func parseEnrolAuthenticator(_ fields: [String: String], user: UserRecord, caller: CallerInfo) async throws -> [String] {
        let write = try await parseCheckNewAuthenticator(fields, user: user, caller: caller)
        return try await transaction { tx in try await self.apply(write, to: user, caller: caller, in: tx) ?? [] }
    }

    /// A change to an enrolled account proves a current factor first (the master key is exempt).
    private func parseProve(_ token: String?, factors: [SecondFactorRecord], user: UserRecord, app: ParseApp, actor: ParseActor,
                            caller: CallerInfo) async throws {
        if case .master = actor { return }
        guard let token, !token.isEmpty else { throw LatchkeyError.secondFactorInvalid }
        try await parseCheck(token, factors: factors, user: user, app: app, caller: caller)
    }

    /// The one check of a Parse token against the account's factors: an authenticator code or a recovery code, or
    /// for a phone a texted code (`"request"` texts one). Counted against the lockout unless the request already
    /// counted its attempt, and audited when wrong.
    private func parseCheck(_ token: String, factors: [SecondFactorRecord], user: UserRecord, app: ParseApp, alreadyCounted: Bool = false,
                            caller: CallerInfo) async throws {
        if factors.contains(where: { $0.kind == .totp }) {
            try await engine.factors.checkAuthenticatorOrRecovery(token, for: user, alreadyCounted: alreadyCounted, caller: caller)
        } else if let phone = factors.first(where: { $0.kind == .sms }) {
            if token == "request" {
                try await parseSendPendingCode(.login, to: phone.target ?? "", user: user, app: app, caller: caller)
                throw LatchkeyError.secondFactor(.codeSent)
            }
            let failures = alreadyCounted ? 0 : try await engine.factors.countSecondFactorAttempt(user, caller: caller)
            guard try await redeemPendingCode(.login, user: user, target: phone.target, code: token) else {
                try await engine.factors.secondFactorFailed(user, failures: failures, what: "wrong text message code", caller: caller)
                throw LatchkeyError.secondFactorInvalid
            }
        }
    }
}
