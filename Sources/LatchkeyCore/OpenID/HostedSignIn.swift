import Foundation

/// The hosted pages drive the same flows as the native API (one set of rules: limits, lockout, second factors),
/// with what a browser page needs on top: a page never tells whether an address has an account.
extension LatchkeyEngine {
    /// What a browser can do: everything but fall back to another browser.
    public static let browserChallengeTypes = ChallengeTypes(oob: true, password: true, redirect: true,
                                                             capabilities: ChallengeTypes.knownCapabilities)

    /// Password sign-in in one step. An unknown address, or an account without a password, is refused like a
    /// wrong password after the same work.
    public func hostedPasswordSignIn(email: String?, password: String?, caller: CallerInfo) async throws -> SignInOutcome {
        guard let password, !password.isEmpty else { throw LatchkeyError.missing(.password) }
        var types = Self.browserChallengeTypes
        types.oob = false
        var token: String?
        do {
            if case .started(let started) = try await signInInitiate(username: email, challengeTypes: types, caller: caller),
               case .password(let challenged) = try await signInChallenge(continuationToken: started, challengeTypes: types, caller: caller) {
                token = challenged
            }
        } catch LatchkeyError.userNotFound {}
        guard let token else {
            try await limit(.credentialPerIP, caller.ip, caller: caller)
            try await refuseAfterDummyCheck(password)
        }
        return try await signInWithPassword(continuationToken: token, username: nil, password: password, scope: nil, caller: caller)
    }

    /// Mails a sign-in code; for an unknown address nothing is sent and the page looks the same (nil token: every
    /// code is wrong).
    public func hostedCodeSignIn(email: String?, caller: CallerInfo) async throws -> (token: String?, challenge: CodeChallenge) {
        var types = Self.browserChallengeTypes
        types.password = false
        do {
            if case .started(let started) = try await signInInitiate(username: email, challengeTypes: types, caller: caller),
               case .code(let challenge, let token) = try await signInChallenge(continuationToken: started, challengeTypes: types,
                                                                                 caller: caller) {
                return (token, challenge)
            }
        } catch LatchkeyError.userNotFound {}
        return (nil, decoyChallenge(email))
    }

    /// Starts a reset by code; for an unknown address, as `hostedCodeSignIn`.
    public func hostedResetStart(email: String?, caller: CallerInfo) async throws -> (token: String?, challenge: CodeChallenge) {
        let types = Self.browserChallengeTypes
        do {
            if case .started(let started) = try await resetStart(username: email, challengeTypes: types, caller: caller),
               case .code(let challenge, let token) = try await resetChallenge(continuationToken: started, challengeTypes: types, caller: caller) {
                return (token, challenge)
            }
        } catch LatchkeyError.userNotFound {}
        return (nil, decoyChallenge(email))
    }

    /// Checks the mailed code and sets the new password, then signs in.
    public func hostedResetFinish(continuationToken: String?, code: String?, newPassword: String?, caller: CallerInfo) async throws -> SignInOutcome {
        guard let continuationToken else {
            try await limit(.credentialPerIP, caller.ip, caller: caller)
            throw LatchkeyError.invalidCode(attemptsLeft: 1)
        }
        // The policy first, so a refused password does not use up the code (reuse is known only after it).
        let flow = try await loadFlow(continuationToken, kind: .passwordReset, client: caller.clientId, in: reader)
        _ = try requireAcceptablePassword(newPassword, identifiers: [flow.email], missing: .newPassword)
        let (verified, _) = try await resetContinue(continuationToken: continuationToken, code: code, caller: caller)
        let (done, _) = try await resetSubmit(continuationToken: verified, newPassword: newPassword, caller: caller)
        return try await signInWithContinuationToken(continuationToken: done, username: nil, scope: nil, caller: caller)
    }

    private func decoyChallenge(_ email: String?) -> CodeChallenge {
        CodeChallenge(targetLabel: EmailAddress.mask(EmailAddress.normalize(email ?? "") ?? ""), codeLength: settings.codes.length,
                      resendIntervalSeconds: settings.codes.resendIntervalSeconds)
    }
}
