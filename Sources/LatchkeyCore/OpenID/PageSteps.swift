import Foundation

/// What a hosted page shows after one of its form posts, and the visit that goes on from it. The flow the pages drive
/// (its continuation token, the decoy of an address without an account, where the last code went) lives in the
/// sealed `Interaction`, which only these calls read and write: a page renders the step and carries the visit.
public enum PageStep: Sendable {
    /// A code went to `target` (masked; for an authenticator app, nil): the code page.
    case codeSent(target: String?)
    /// An authenticator's key to add to an app, then its code.
    case authenticator(AuthenticatorOffer)
    /// The recovery codes an enrolled authenticator comes with, shown once.
    case recoveryCodes([String])
    /// The journey ended (signed in, or a redirect the visit's progress decides).
    case finished(SignInOutcome)
    /// The flow is at no step this page can take (the client cannot do it here).
    case notPossible
}

extension PagesService {
    /// The sign-in page's "mail me a code": for an address without an account nothing is sent and the visit becomes a
    /// decoy whose every code is wrong.
    public func pageMailSignInCode(email: String?, visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction) {
        var types = Self.browserChallengeTypes
        types.password = false
        let (token, challenge) = try await codeOrDecoy(email, caller: caller) {
            guard case .started(let started) = try await signInInitiate(username: email, challengeTypes: types, caller: caller),
                  case .code(let sent, let next) = try await signInChallenge(continuationToken: started, challengeTypes: types, caller: caller)
            else { return nil }
            return (next, sent)
        }
        var next = visit
        next.flowToken = token
        next.decoyAddress = token == nil ? email : nil
        return (.codeSent(target: challenge.targetLabel), next.sentCode(to: challenge.targetLabel))
    }

    /// "Send a new code" on any code page. The flow the visit drives says where the last code went (an address
    /// being enrolled, the second factor chosen, else the flow's own first step), and the same challenge sends another,
    /// counted by the mail limits as the first was; a decoy visit's resend sends nothing, after the same quota.
    public func pageResendCode(visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction) {
        guard let token = visit.flowToken else {
            let challenge = try await decoy(visit.decoyAddress, caller: caller).challenge
            return (.codeSent(target: challenge.targetLabel), visit.sentCode(to: challenge.targetLabel))
        }
        let flow = try await loadFlow(token, where: { _ in true }, client: caller.clientId, in: reader)  // each challenge checks the step
        let factors = flow.state.factors
        if factors.factorId == nil, let target = factors.target, let channel = factors.channel, ["email", "sms"].contains(channel) {
            return try await pageEnrol(target: target, channel: channel, visit: visit, caller: caller)
        }
        if let factorId = factors.factorId { return try await pageSendSecondFactor(methodId: factorId, visit: visit, caller: caller) }
        var types = Self.browserChallengeTypes
        let sent: ChallengeResult
        switch flow.kind {
        case .signUp: sent = try await signUpChallenge(continuationToken: token, challengeTypes: types, caller: caller)
        case .passwordReset: sent = try await resetChallenge(continuationToken: token, challengeTypes: types, caller: caller)
        case .signIn:
            types.password = false
            sent = try await signInChallenge(continuationToken: token, challengeTypes: types, caller: caller)
        }
        guard case .code(let challenge, let next) = sent else { return (.notPossible, visit) }
        return (.codeSent(target: challenge.targetLabel), visit.advanced(to: next).sentCode(to: challenge.targetLabel))
    }

    /// The sign-in code page's code: a decoy visit has no flow, so every code is wrong.
    public func pageSignInCode(_ code: String?, visit: Interaction, caller: CallerInfo) async throws -> PageStep {
        guard let token = visit.flowToken else {
            try await limit(.credentialPerIP, caller.ip, caller: caller)  // counted as a real code check is
            throw LatchkeyError.invalidCode(attemptsLeft: 1)
        }
        return .finished(try await signInWithCode(continuationToken: token, code: code, scope: nil, secondFactorOnly: false, caller: caller))
    }

    /// The sign-up page: the account is started and its address gets a code.
    public func pageSignUp(email: String?, password: String?, attributes: [String: JSONValue], visit: Interaction,
                           caller: CallerInfo) async throws -> (PageStep, Interaction) {
        let types = Self.browserChallengeTypes
        guard case .started(let started) = try await signUpStart(username: email, password: password, attributes: attributes,
                                                                 challengeTypes: types, caller: caller),
              case .code(let challenge, let token) = try await signUpChallenge(continuationToken: started, challengeTypes: types,
                                                                               caller: caller) else { return (.notPossible, visit) }
        return (.codeSent(target: challenge.targetLabel), visit.advanced(to: token).sentCode(to: challenge.targetLabel))
    }

    /// The sign-up code page's code: the account is made and signed in.
    public func pageSignUpCode(_ code: String?, visit: Interaction, caller: CallerInfo) async throws -> PageStep {
        guard case .completed(let token, _) = try await signUpContinueWithCode(continuationToken: visit.flowToken, code: code,
                                                                               caller: caller) else { return .notPossible }
        return .finished(try await signInWithContinuationToken(continuationToken: token, username: nil, scope: nil, caller: caller))
    }

    /// The reset page: a code to the address (or, for one without an account, the same page after the same quota).
    public func pageStartReset(email: String?, visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction) {
        let types = Self.browserChallengeTypes
        let (token, challenge) = try await codeOrDecoy(email, caller: caller) {
            guard case .started(let started) = try await resetStart(username: email, challengeTypes: types, caller: caller),
                  case .code(let sent, let next) = try await resetChallenge(continuationToken: started, challengeTypes: types, caller: caller)
            else { return nil }
            return (next, sent)
        }
        var next = visit
        next.flowToken = token
        next.decoyAddress = token == nil ? email : nil
        return (.codeSent(target: challenge.targetLabel), next.sentCode(to: challenge.targetLabel))
    }

    /// The reset code page: the code and the new password, then signed in.
    public func pageFinishReset(code: String?, newPassword: String?, visit: Interaction, caller: CallerInfo) async throws -> PageStep {
        // A decoy visit has no flow: every code is wrong, after the same budget.
        guard let continuationToken = visit.flowToken else {
            try await limit(.credentialPerIP, caller.ip, caller: caller)
            throw LatchkeyError.invalidCode(attemptsLeft: 1)
        }
        // The policy first, so a refused password does not use up the code (reuse is known only after it).
        let flow = try await loadFlow(continuationToken, kind: .passwordReset, client: caller.clientId, in: reader)
        _ = try engine.accounts.requireAcceptablePassword(newPassword, identifiers: [flow.email], missing: .newPassword)
        let (verified, _) = try await resetContinue(continuationToken: continuationToken, code: code, caller: caller)
        let (done, _) = try await resetSubmit(continuationToken: verified, newPassword: newPassword, caller: caller)
        return .finished(try await signInWithContinuationToken(continuationToken: done, username: nil, scope: nil, caller: caller))
    }

    /// The second-factor page's choice: a code to that factor (or the authenticator app's own).
    public func pageSendSecondFactor(methodId: String?, visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction) {
        guard case .code(let challenge, let next) = try await mfaChallenge(continuationToken: visit.flowToken, methodId: methodId,
                                                                           challengeTypes: Self.browserChallengeTypes,
                                                                           caller: caller) else { return (.notPossible, visit) }
        let target = challenge.channel == "totp" ? nil : challenge.targetLabel
        return (.codeSent(target: target), visit.advanced(to: next).sentCode(to: target))
    }

    /// The second factor's code.
    public func pageSecondFactorCode(_ code: String?, visit: Interaction, caller: CallerInfo) async throws -> PageStep {
        .finished(try await signInWithCode(continuationToken: visit.flowToken, code: code, scope: nil, secondFactorOnly: true, caller: caller))
    }

    /// The enrolment page's address or phone number: a code to prove it, or (an address the sign-in proved) enrolled.
    public func pageEnrol(target: String?, channel: String?, visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction) {
        switch try await registrationChallenge(continuationToken: visit.flowToken, challengeType: "oob redirect", target: target,
                                               channel: channel, caller: caller) {
        case .code(let challenge, _, let next):
            return (.codeSent(target: challenge.targetLabel), visit.advanced(to: next).sentCode(to: challenge.targetLabel))
        case .preverified(let next):
            let enrolled = try await registrationContinue(continuationToken: next, grantType: "continuation_token", code: nil, caller: caller)
            return (.finished(try await signInWithContinuationToken(continuationToken: enrolled, username: nil, scope: nil, caller: caller)),
                    visit)
        case .redirect:
            return (.notPossible, visit)
        }
    }

    /// The enrolment's code: the factor is added and the sign-in goes on.
    public func pageEnrolCode(_ code: String?, visit: Interaction, caller: CallerInfo) async throws -> PageStep {
        let enrolled = try await registrationContinue(continuationToken: visit.flowToken, grantType: "oob", code: code, caller: caller)
        return .finished(try await signInWithContinuationToken(continuationToken: enrolled, username: nil, scope: nil, caller: caller))
    }

    /// An authenticator app to enrol: its key.
    public func pageBeginAuthenticator(visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction) {
        let offer = try await registrationBeginAuthenticator(continuationToken: visit.flowToken, caller: caller)
        return (.authenticator(offer), visit.advanced(to: offer.continuationToken))
    }

    /// The authenticator's first code: enrolled, with its recovery codes.
    public func pageConfirmAuthenticator(_ code: String?, visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction) {
        let (next, codes) = try await registrationConfirmAuthenticator(continuationToken: visit.flowToken, code: code, caller: caller)
        return (.recoveryCodes(codes), visit.advanced(to: next))
    }

    /// A code mailed by `send`; for an address without an account (or one that takes no code) the decoy's same page,
    /// after the same per-address quota.
    private func codeOrDecoy(_ email: String?, caller: CallerInfo,
                             _ send: () async throws -> (token: String, challenge: CodeChallenge)?) async throws -> (String?, CodeChallenge) {
        do {
            if let sent = try await send() { return (sent.token, sent.challenge) }
        } catch LatchkeyError.userNotFound {}
        return try await decoy(email, caller: caller)
    }

    /// After the recovery codes: the sign-in goes on.
    public func pageFinishEnrolment(visit: Interaction, caller: CallerInfo) async throws -> PageStep {
        .finished(try await signInWithContinuationToken(continuationToken: visit.flowToken, username: nil, scope: nil, caller: caller))
    }
}

extension Interaction {
    /// The visit with the flow's next token.
    func advanced(to token: String) -> Interaction {
        var next = self
        next.flowToken = token
        return next
    }

    /// The visit remembering where the last code went (empty: the authenticator app), for the code page shown again
    /// after a wrong code.
    func sentCode(to target: String?) -> Interaction {
        var next = self
        next.codeTarget = target ?? ""
        return next
    }
}
