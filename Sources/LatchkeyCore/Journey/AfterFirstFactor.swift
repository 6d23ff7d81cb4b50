import Foundation

/// The journey after its first factor, for every way in (a password, a mailed code, a finished sign-up or reset, an
/// issuer at the pages): the second factor this client's policy and the account's factors make due (one of another
/// kind than the first), enrolment when the policy requires one and the account has none, else the end: tokens for
/// an app, or the signed-in account for the pages.
extension SignInJourney {
    /// After a first factor: finishes the flow with tokens, or moves it to the second-factor step this client's
    /// policy and the account's factors call for (the flow, its user and what the client can do are kept).
    func afterFirstFactor(_ flow: FlowRecord, user: UserRecord, passed first: FirstFactor, client: ClientApplication, scope: String?,
                          caller: CallerInfo, in tx: any Repositories) async throws -> SignInOutcome {
        let method = first.method
        var next = flow
        next.state.factors.mailboxProven = first.mailboxProven
        next.state.factors.amr = first.amr
        let capabilities = Set(flow.state.client.capabilities)
        if client.mfa != .off {
            switch try await assuranceAfter(next, first: first, user: user, client: client, in: tx) {
            case .secondFactor:
                guard capabilities.contains(ChallengeTypes.mfaRequired) else {
                    try await finish(flow, in: tx)
                    return .redirect(reason: "Client is missing mfa_required capability")
                }
                try next.take(.secondFactorDue)
                try await audit(tx, "mfa_required", caller: caller, userId: user.id, email: user.email, detail: method)
                return .mfaRequired(continuationToken: try await advance(next, in: tx))
            case .notHere:
                // The account's second factor is one this surface cannot run, or one that cannot follow this first
                // factor (a code to the address the sign-in used): never sign in on the first alone, never enrol
                // another on it; the browser takes over, where the password can go first.
                try await finish(flow, in: tx)
                try await audit(tx, "mfa_not_here", caller: caller, userId: user.id, email: user.email, detail: method)
                let heldButBarred = try await !engine.factors.challengeableFactors(userId: user.id, in: tx).isEmpty
                return .redirect(reason: heldButBarred ? "This account's second factor cannot follow a code to its own address: sign in with the password"
                                                       : "This account's second factor needs the browser")
            case .enrol:
                let enrollable = engine.factors.registrableMethods(browser: flow.state.client.audience == .browser)
                guard capabilities.contains(ChallengeTypes.registrationRequired), !enrollable.isEmpty else {
                    try await finish(flow, in: tx)
                    return .redirect(reason: enrollable.isEmpty
                        ? "This account must enrol an authenticator app, which the native API cannot do"
                        : "Client is missing registration_required capability")
                }
                try next.take(.enrolmentDue)
                try await audit(tx, "mfa_registration_required", caller: caller, userId: user.id, email: user.email, detail: method)
                return .registrationRequired(continuationToken: try await advance(next, in: tx))
            case .enough, .signInAgain, .stepUp:
                break
            }
        }
        try await finish(flow, in: tx)
        return try await completeSignIn(next, user: user, rehash: first.rehash, client: client, scope: scope, method: method, caller: caller, in: tx)
    }

    /// The assurance rule's verdict after the first factor: the second factors that may follow it (of another kind)
    /// and the passkeys are what the account holds for this sign-in; enrolment only for an account holding none at all.
    private func assuranceAfter(_ flow: FlowRecord, first: FirstFactor, user: UserRecord, client: ClientApplication,
                                in tx: any Repositories) async throws -> Assurance.Verdict {
        let all = try await engine.accounts.holdings(of: user, in: tx)
        var holds = AccountHoldings(strong: Set(try await secondFactors(of: user, after: flow, in: tx).compactMap(\.kind.strongFactor)))
        if all.strong.contains(.passkey) { holds.strong.insert(.passkey) }
        let runnable = flow.state.client.audience == .browser ? Set(StrongFactor.allCases) : StrongFactor.appWires
        let verdict = Assurance.decide(.signIn(client.mfa, runnable: runnable), holds: holds, proved: SessionProof(amr: first.amr, authTime: nil),
                                       now: time.now(), recentSeconds: engine.settings.mfa.recentSignInSeconds)
        return verdict == .enrol && !all.strong.isEmpty ? .notHere : verdict
    }

    /// The factors that may be this journey's second: of a different kind from its first (`FactorKinds`).
    func secondFactors(of user: UserRecord, after flow: FlowRecord, in tx: any Repositories) async throws -> [SecondFactorRecord] {
        let first = flow.firstFactorKinds(of: user)
        return try await engine.factors.challengeableFactors(userId: user.id, in: tx).filter { AccountRules.isSecondFactor($0, of: user, after: first) }
    }
}
