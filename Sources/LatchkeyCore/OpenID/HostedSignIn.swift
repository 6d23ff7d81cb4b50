import Foundation

/// The hosted pages drive the same flows as the native API (one set of rules: limits, lockout, second factors),
/// with what a browser page needs on top: a page never tells whether an address has an account.
extension PagesService {
    /// What a browser can do: everything but fall back to another browser.
    public static let browserChallengeTypes = ChallengeTypes(oob: true, password: true, redirect: true,
                                                             capabilities: ChallengeTypes.knownCapabilities)

    /// Password sign-in in one step. An unknown address, or an account without a password, is refused like a
    /// wrong password after the same work.
    public func hostedPasswordSignIn(email: String?, password: String?, caller: CallerInfo) async throws -> SignInOutcome {
        guard let password, !password.isEmpty else { throw LatchkeyError.missing(.password) }
        var types = Self.browserChallengeTypes
        types.oob = false
        let (client, address, _) = try await beginFlow(.signInPerIP, username: email, challengeTypes: types, caller: caller)
        // Every password check counts, whether or not the address has an account (the native API's password grant
        // counts the same budget before its flow is read).
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        guard let user = try await reader.users.find(email: address), user.status == .active, user.passwordHash != nil else {
            try await engine.accounts.refuseAfterDummyCheck(password)
        }
        // Started and answered in this one request: the flow is stored only if a second factor or an enrolment follows.
        var flow = transientFlow(.signIn, email: address, userId: user.id, state: .started(
            client: JourneyClient(id: client.id, acceptsCode: false, acceptsPassword: true, capabilities: types.capabilities.sorted(),
                                  audience: caller.audience),
            details: .signIn))
        try flow.take(.passwordChosen)
        do {
            return try await submitPassword(password, flow: flow, user: user, client: client, scope: nil, caller: caller)
        } catch LatchkeyError.accountLocked {
            // A locked account answers as a wrong password does, after the same work: the pages do not tell which
            // addresses have accounts through the lockout. The owner was mailed when the lock began.
            try await engine.accounts.refuseAfterDummyCheck(password)
        }
    }

    /// The page an unknown address gets: the same code page, after the same per-address mail quota a known address
    /// meets (counted by the address, so the quota's refusal does not tell which addresses have accounts).
    func decoy(_ email: String?, caller: CallerInfo) async throws -> (token: String?, challenge: CodeChallenge) {
        try await limit(.mailPerAddress, EmailAddress.normalize(email ?? ""), caller: caller)
        return (nil, decoyChallenge(email))
    }

    private func decoyChallenge(_ email: String?) -> CodeChallenge {
        CodeChallenge(targetLabel: EmailAddress.mask(EmailAddress.normalize(email ?? "") ?? ""), codeLength: settings.codes.length,
                      resendIntervalSeconds: settings.codes.resendIntervalSeconds)
    }
}
