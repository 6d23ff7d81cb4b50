import Foundation

/// What a first factor accepted at `/token` leads to: tokens, or the second factor the client's policy asks for.
public enum SignInOutcome: Sendable, Equatable {
    case tokens(TokenSet)
    /// `invalid_grant` + `mfa_required`: the account has a factor; the token leads to `/oauth2/v2.0/introspect`.
    case mfaRequired(continuationToken: String)
    /// `invalid_grant` + `registration_required`: the account must enrol one first (`/register/v1.0/*`).
    case registrationRequired(continuationToken: String)
    /// The client did not say it can do the step the account needs: the browser must take over.
    case redirect(reason: String)
    /// A hosted-page flow ended: the account is signed in; the page opens a browser session (no tokens yet).
    case signedIn(BrowserSignIn)

    /// The tokens, when the sign-in ended with them.
    public var tokenSet: TokenSet? {
        if case .tokens(let tokens) = self { tokens } else { nil }
    }
}

/// One way to receive a second-factor code, as `introspect` lists it.
public struct AuthMethod: Sendable, Equatable {
    public var id: String
    public var channel: String
    public var loginHint: String?
}

/// The native second factor, as MSAL drives it: `/token` answers `mfa_required` once the first factor passed,
/// `introspect` lists the account's factors, `challenge` with a factor's `id` sends its code (or, for an
/// authenticator, asks for one), and `/token` with `mfa_oob` (or `oob`) completes the sign-in.
extension SignInJourney {
    /// The flow behind a continuation token when it is at a second-factor step (of any kind of flow: sign-in,
    /// sign-up or reset may each lead there); nil for any other flow.
    func secondFactorFlow(_ token: String?, caller: CallerInfo) async throws -> FlowRecord? {
        guard let token, !token.isEmpty, token.utf8.count <= SecretToken.maxPresentedBytes,
              let flow = try await reader.flows.find(tokenHash: engine.secretHash(token)) else { return nil }
        switch flow.state.stage {
        case .mfaRequired, .mfaChallenged, .registrationRequired, .registrationChallenged, .registrationPreverified, .registrationVerified:
            return try live(flow, where: { _ in true }, client: caller.clientId)
        default: return nil
        }
    }

    /// A second-factor flow waiting for `step`, with its active user.
    func requireSecondFactorFlow(_ token: String?, for step: JourneyStep, caller: CallerInfo,
                                 in tx: any Repositories) async throws -> (FlowRecord, UserRecord) {
        let flow = try await loadFlow(token, where: { _ in true }, client: caller.clientId, in: tx)
        try flow.require(step)
        guard let userId = flow.userId, let user = try await tx.users.find(id: userId), user.status == .active else {
            throw LatchkeyError.userNotFound
        }
        return (flow, user)
    }

    /// `/oauth2/v2.0/introspect`: the account's factors, each with an opaque id and a masked target.
    public func mfaIntrospect(continuationToken: String?, caller: CallerInfo) async throws -> (methods: [AuthMethod], continuationToken: String) {
        _ = try engine.requireClient(caller.clientId)
        return try await transaction { tx in
            let (flow, user) = try await self.requireSecondFactorFlow(continuationToken, for: .chooseSecondFactor, caller: caller, in: tx)
            let methods = try await self.secondFactors(of: user, after: flow, in: tx).map(Self.authMethod)
            let passkey = try await self.passkeyIsSecondFactor(for: user, after: flow, in: tx)
            guard !methods.isEmpty || passkey else {
                throw LatchkeyError.flowStepMismatch("the account has no second factor any more")
            }
            return (methods, try await self.advance(flow, in: tx))
        }
    }

    static func authMethod(_ factor: SecondFactorRecord) -> AuthMethod {
        switch factor.kind {
        case .email: AuthMethod(id: factor.id, channel: "email", loginHint: EmailAddress.mask(factor.target ?? ""))
        case .sms: AuthMethod(id: factor.id, channel: "sms", loginHint: SecondFactors.maskPhone(factor.target ?? ""))
        case .totp, .recovery: AuthMethod(id: factor.id, channel: "totp", loginHint: "authenticator app")
        }
    }

    /// `/oauth2/v2.0/challenge` with `id`: sends that factor's code (a new one on every call, so this is also the
    /// resend, and another `id` switches factor). An authenticator gets no message: its app shows the code.
    public func mfaChallenge(continuationToken: String?, methodId: String?, challengeTypes: ChallengeTypes?,
                             caller: CallerInfo) async throws -> ChallengeResult {
        _ = try engine.requireClient(caller.clientId)
        let types = try requireRedirect(challengeTypes)
        guard let methodId, !methodId.isEmpty else { throw LatchkeyError.secondFactor(.unknownMethod) }
        let (flow, user) = try await requireSecondFactorFlow(continuationToken, for: .secondFactor, caller: caller, in: reader)
        guard let factor = try await engine.factors.challengeableFactors(userId: user.id, in: reader).first(where: { $0.id == methodId }) else {
            throw LatchkeyError.secondFactor(.unknownMethod)
        }
        guard types.oob else { return .redirect }
        // A text message goes out before anything is written: if it fails, the token is still good for a retry.
        var texted: String?
        if factor.kind == .sms { texted = try await engine.factors.sendTextCode(to: factor.target ?? "", purpose: "sign_in", user: user, caller: caller) }
        let sentCode = texted
        return try await transaction { tx -> Result<ChallengeResult, LatchkeyError> in
            guard var live = try await tx.flows.find(tokenHash: flow.tokenHash) else { throw LatchkeyError.flowTokenInvalid }
            var challenge: CodeChallenge
            switch factor.kind {
            case .email:
                if let limited = try await self.limit(.mailPerIP, caller.ip, caller: caller, in: tx) { return .failure(limited) }
                if let limited = try await self.limit(.mailPerAddress, factor.target, caller: caller, in: tx) { return .failure(limited) }
                challenge = try await engine.proofs.issueCode(for: live, mail: .secondFactorCode, to: factor.target,
                                                     locale: engine.mailLocale(user.attributes, caller: caller), in: tx)
            case .sms:
                try await engine.proofs.saveCode(sentCode ?? "", for: live, in: tx)
                challenge = CodeChallenge(targetLabel: SecondFactors.maskPhone(factor.target ?? ""), channel: "sms", codeLength: engine.settings.codes.length,
                                          resendIntervalSeconds: engine.settings.codes.resendIntervalSeconds)
            case .totp, .recovery:
                challenge = CodeChallenge(targetLabel: "authenticator app", channel: "totp", codeLength: TOTP.digits, resendIntervalSeconds: 0)
            }
            try live.take(.secondFactorCodeSent)
            live.state.factors.factorId = factor.id
            EngineMetrics.secondFactor("challenged", factor.kind)
            return .success(.code(challenge, continuationToken: try await self.advance(live, in: tx)))
        }.get()
    }

    /// `mfa_oob` (or `oob`) on a challenged flow: the chosen factor's code. A wrong code keeps the token usable (the
    /// SDK retries with it); every attempt counts against the account's lockout, and a mailed or texted code also
    /// has its own attempt cap.
    func signInWithSecondFactor(_ flow: FlowRecord, code: String?, scope: String?, client: ClientApplication,
                                caller: CallerInfo) async throws -> SignInOutcome {
        guard let code, !code.isEmpty else { throw LatchkeyError.missing(.code) }
        _ = try engine.tokens.grantedScopes(scope, client: client)
        guard let userId = flow.userId, let user = try await reader.users.find(id: userId), user.status == .active,
              let factor = try await reader.secondFactors.secondFactors(userId: userId).first(where: { $0.id == flow.state.factors.factorId }) else {
            throw LatchkeyError.flowTokenInvalid
        }
        let failures = try await engine.factors.countSecondFactorAttempt(user, caller: caller)
        if factor.kind == .totp {
            guard let key = factor.secret.flatMap({ keys.secondFactor.open([UInt8]($0)) }),
                  let step = TOTP.matchingStep(key: key, code: code, at: time.now()),
                  try await engine.standaloneWrite({ try await $0.secondFactors.acceptTOTPStep(factorId: factor.id, step: step) }) else {
                try await engine.factors.secondFactorFailed(user, failures: failures, what: "wrong authenticator code", caller: caller)
                throw LatchkeyError.invalidCode(attemptsLeft: 1)
            }
        }
        let result = try await transaction { tx -> Result<SignInOutcome, LatchkeyError> in
            guard let current = try await tx.users.find(id: user.id) else { throw LatchkeyError.userNotFound }
            if factor.kind != .totp, let failure = try await engine.proofs.checkCode(code, for: flow, in: tx) { return .failure(failure) }
            try await self.finish(flow, in: tx)
            try await self.audit(tx, "mfa_passed", caller: caller, userId: user.id, email: user.email, detail: SecondFactors.describe(factor))
            EngineMetrics.secondFactor("passed", factor.kind)
            var passed = flow
            passed.state.factors.amr = AuthenticationMethods.afterSecondFactor(flow.state.factors.amr, kind: factor.kind)
            return .success(try await self.completeSignIn(passed, user: current, rehash: nil, client: client, scope: scope,
                                                          method: "second factor \(factor.kind.rawValue)", caller: caller, in: tx))
        }
        if case .failure(let failure) = result {
            try await engine.factors.secondFactorFailed(user, failures: failures, what: "wrong \(factor.kind.rawValue) code", caller: caller)
            throw failure
        }
        return try result.get()
    }
}
