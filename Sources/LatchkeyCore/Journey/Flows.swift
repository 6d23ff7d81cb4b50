import Foundation

/// Continuation tokens: random, stored only as an HMAC, a fresh one for every step that succeeds.
extension SignInJourney {
    /// A flow's first row, and the continuation token that finds it. One insert needs no transaction of its own:
    /// as a stand-alone write it joins the next group commit, so concurrent starts share one sync to disk.
    func newFlow(_ kind: FlowRecord.Kind, email: String, userId: String?, state: FlowState) async throws -> String {
        let token = SecureRandom.token()
        let now = time.now()
        let flow = FlowRecord(id: SecureRandom.uuidString(), tokenHash: engine.secretHash(token), kind: kind, email: email, userId: userId,
                              state: state, expiresAt: now + Double(engine.settings.tokens.flowTTLSeconds), createdAt: now)
        try await engine.standaloneWrite { try await $0.flows.insert(flow) }
        return token
    }

    /// A flow begun and answered in the same request (a hosted password post): kept in memory, it is stored only when
    /// it goes on past that request (`advance` inserts it) and finishing it writes nothing.
    func transientFlow(_ kind: FlowRecord.Kind, email: String, userId: String?, state: FlowState) -> FlowRecord {
        let now = time.now()
        return FlowRecord(id: SecureRandom.uuidString(), tokenHash: Data(), kind: kind, email: email, userId: userId, state: state,
                          expiresAt: now + Double(engine.settings.tokens.flowTTLSeconds), createdAt: now)
    }

    /// The checks every flow's first step makes, in this order: a known client, the per-IP budget for this
    /// kind of start, a plausible email address, and challenge types that include the browser fallback.
    func beginFlow(_ rule: LimitSettings.Rule, username: String?, challengeTypes: ChallengeTypes?,
                   caller: CallerInfo) async throws -> (ClientApplication, String, ChallengeTypes) {
        let client = try engine.requireClient(caller.clientId)
        // An app's native API call needs the native grants; the hosted pages end in a browser session, which the
        // client's authorization code grant governs at `/authorize`.
        if caller.audience == .app, client.grantTypes.isDisjoint(with: [.password, .oob]) { try engine.accounts.requireGrant(.oob, for: client) }
        try await limit(rule, caller.ip, caller: caller)
        return (client, try engine.accounts.requireEmail(username), try requireRedirect(challengeTypes))
    }

    /// The SDKs must be able to fall back to the browser: every challenge list includes redirect.
    func requireRedirect(_ types: ChallengeTypes?) throws -> ChallengeTypes {
        guard let types else { throw LatchkeyError.missing(.challengeTypes) }
        guard types.redirect else { throw LatchkeyError.unsupportedChallengeType }
        return types
    }

    /// Saves the flow's new state under a new token, only if the token it was loaded with is still its token: the
    /// old token stops working, and of two calls racing with one token only one moves the flow.
    func advance(_ flow: FlowRecord, in tx: any Repositories) async throws -> String {
        var next = flow
        let token = SecureRandom.token()
        next.tokenHash = engine.secretHash(token)
        next.expiresAt = time.now() + Double(engine.settings.tokens.flowTTLSeconds)
        if flow.isTransient {
            try await tx.flows.insert(next)
            return token
        }
        guard try await tx.flows.advance(next, from: flow.tokenHash) else { throw LatchkeyError.flowTokenInvalid }
        return token
    }

    /// Ends the flow, once: a second use of its token is `.flowTokenInvalid`. A transient flow has nothing stored.
    func finish(_ flow: FlowRecord, in tx: any Repositories) async throws {
        if flow.isTransient { return }
        guard try await tx.flows.complete(id: flow.id, tokenHash: flow.tokenHash) else { throw LatchkeyError.flowTokenInvalid }
    }

    /// The live flow of `kind` behind `token`, started by the same client; a token from another kind of
    /// flow or another app is as good as unknown.
    func loadFlow(_ token: String?, kind: FlowRecord.Kind, client: String?, in tx: any Repositories) async throws -> FlowRecord {
        try await loadFlow(token, where: { $0 == kind }, client: client, in: tx)
    }

    /// The live flow a continuation token names, when its kind passes `accepts` and it belongs to `client`.
    func loadFlow(_ token: String?, where accepts: (FlowRecord.Kind) -> Bool, client: String?, in tx: any Repositories) async throws
        -> FlowRecord {
        guard let token, !token.isEmpty else { throw LatchkeyError.missing(.continuationToken) }
        guard token.utf8.count <= SecretToken.maxPresentedBytes else { throw LatchkeyError.flowTokenInvalid }
        return try live(try await tx.flows.find(tokenHash: engine.secretHash(token)), where: accepts, client: client)
    }

    /// `flow` (found by its token) when it is of a kind `accepts`, started by `client`, and not expired.
    func live(_ flow: FlowRecord?, where accepts: (FlowRecord.Kind) -> Bool, client: String?) throws -> FlowRecord {
        guard let flow, accepts(flow.kind), ClientApplication.sameID(flow.state.client.id, client ?? "") else {
            throw LatchkeyError.flowTokenInvalid
        }
        guard flow.expiresAt > time.now() else { throw LatchkeyError.flowTokenExpired }
        return flow
    }
}

extension FlowRecord {
    /// Never stored: no token finds it (`SignInJourney.transientFlow`).
    var isTransient: Bool { tokenHash.isEmpty }
}

/// Which challenges the client said it can handle; each dialect reads its own spelling of the list.
public struct ChallengeTypes: Sendable, Equatable {
    public var oob: Bool
    public var password: Bool
    public var redirect: Bool
    /// What the client can do after the first factor (`capabilities`), sent with a flow's first step only.
    public var capabilities: Set<String> = []
    public static let mfaRequired = "mfa_required", registrationRequired = "registration_required"
    public static let knownCapabilities: Set<String> = [mfaRequired, registrationRequired]
    public init(oob: Bool, password: Bool, redirect: Bool, capabilities: Set<String> = []) {
        self.oob = oob; self.password = password; self.redirect = redirect; self.capabilities = capabilities
    }
}
