import Foundation

/// Where a visit to the hosted pages goes next.
public enum AuthorizationStep: Sendable, Equatable {
    /// The user must sign in (again: `prompt=login`, `max_age`, or a second factor this client needs).
    case signIn
    /// A third-party client asks for these scopes.
    case consent(scopes: [String])
    /// Back to the client: with a code, or with an OAuth error.
    case redirect(String)
}

/// The authorization endpoint's decision (modelled on fosite's authorize-code handler and node-oidc-provider's
/// prompts): sign in, ask for consent, or redirect with a code bound to client, redirect URI, PKCE and nonce.
extension PagesService {
    public func nextStep(_ interaction: Interaction, session: BrowserSessionRecord?, consentGiven: Bool = false,
                         caller: CallerInfo) async throws -> AuthorizationStep {
        let (step, code) = try await decidedStep(interaction, session: session, consentGiven: consentGiven)
        guard let code else { return step }
        if let userCode = interaction.request.deviceUserCode {
            return try await approveDevice(userCode: userCode, code: code, caller: caller) ? step : .redirect(deviceDone(.gone))
        }
        try await engine.standaloneWrite { try await $0.openID.insert(code) }
        return step
    }

    /// `nextStep`'s decision, with the code a redirect carries not yet stored (a passkey sign-in writes it in the
    /// write that opens its browser session).
    func decidedStep(_ interaction: Interaction, session: BrowserSessionRecord?, consentGiven: Bool = false) async throws
        -> (step: AuthorizationStep, code: AuthorizationCodeRecord?) {
        let request = interaction.request
        let client = try engine.requireClient(request.clientId)
        let noPrompt = request.prompt.contains("none")
        guard let session, try await sessionSuffices(session, for: interaction, client: client) else {
            return (noPrompt ? .redirect(errorRedirect(.loginRequired, request)) : .signIn, nil)
        }
        if !consentGiven, try await needsConsent(request, client: client, userId: session.userId) {
            return (noPrompt ? .redirect(errorRedirect(.consentRequired, request)) : .consent(scopes: request.scopes), nil)
        }
        if request.isDevice {
            guard let code = try await deviceCode(request, session: session) else { return (.redirect(deviceDone(.gone)), nil) }
            return (.redirect(deviceDone(.approved)), code)
        }
        let (code, redirect) = newCode(request, session: session)
        return (.redirect(redirect), code)
    }

    /// Whether the browser's session answers this request: a sign-in during this visit always does; otherwise not
    /// under `prompt=login`, not when older than `max_age`, and not without a second factor the client needs.
    func sessionSuffices(_ session: BrowserSessionRecord, for interaction: Interaction, client: ClientApplication) async throws -> Bool {
        if interaction.signedInSession == session.id { return true }
        let request = interaction.request
        if request.prompt.contains("login") { return false }
        if let maxAge = request.maxAge, time.now().timeIntervalSince(session.authTime) > Double(maxAge) { return false }
        guard let user = try await reader.users.find(id: session.userId) else { return false }
        return try await engine.accounts.assurance(.singleSignOn(client.mfa), for: user, proved: session.proof, in: reader) == .enough
    }

    /// A third-party client asks each user once for each set of scopes and each resource; a first-party one never,
    /// unless the resource it asks a token for wants its own consent (`resources[].first_party_consent: false`).
    func needsConsent(_ request: AuthorizationRequest, client: ClientApplication, userId: String) async throws -> Bool {
        if request.prompt.contains("consent") { return true }
        let resource = request.resource.flatMap(engine.resource(uri:))
        guard !client.firstParty || resource?.firstPartyConsent == false else { return false }
        guard let consent = try await reader.openID.consent(userId: userId, clientId: client.id) else { return true }
        let asked = client.firstParty ? [resource?.consentItem].compactMap { $0 } : Self.consentItems(request)
        return !Set(asked).isSubset(of: Set(consent.scope.split(separator: " ").map(String.init)))
    }

    /// What a consent to `request` records: its scopes, and the resource it names.
    static func consentItems(_ request: AuthorizationRequest) -> [String] {
        request.scopes + [request.resource.map { ProtectedResource(uri: $0).consentItem }].compactMap { $0 }
    }

    /// Records the user's consent to the scopes (and resource) this visit asks for, added to what they gave before.
    public func grantConsent(_ interaction: Interaction, userId: String, caller: CallerInfo) async throws {
        let request = interaction.request
        let earlier = try await reader.openID.consent(userId: userId, clientId: request.clientId)
        let asked = Self.consentItems(request)
        let items = Set(asked).union(earlier.map { Set($0.scope.split(separator: " ").map(String.init)) } ?? [])
        try await transaction { tx in
            try await tx.openID.saveConsent(ConsentRecord(userId: userId, clientId: request.clientId, scope: items.sorted().joined(separator: " "),
                                                          grantedAt: self.time.now()))
            try await self.audit(tx, "consent_granted", caller: caller, userId: userId, detail: "\(request.clientId): \(asked.joined(separator: " "))")
        }
    }

    /// The redirect that tells the client the user declined (a device: the page that says so, its request denied).
    public func declineConsent(_ interaction: Interaction, caller: CallerInfo) async throws -> String {
        guard let userCode = interaction.request.deviceUserCode else { return errorRedirect(.accessDenied, interaction.request) }
        return try await denyDevice(userCode: userCode, caller: caller)
    }

    /// A new single-use code for this request and session, not yet stored, and the redirect URI that carries it.
    private func newCode(_ request: AuthorizationRequest, session: BrowserSessionRecord) -> (record: AuthorizationCodeRecord, redirect: String) {
        let code = SecureRandom.token()
        let record = AuthorizationCodeRecord(
            codeHash: engine.secretHash(code), clientId: request.clientId, userId: session.userId, redirectUri: request.redirectUri,
            codeChallenge: request.codeChallenge, nonce: request.nonce, scope: request.scopes.joined(separator: " "), amr: session.amr,
            authTime: session.authTime, familyId: TimeOrderedID.make(at: session.authTime), browserSessionId: session.id,
            expiresAt: time.now() + Double(settings.openID.codeTTLSeconds), resource: request.resource)
        return (record, Self.redirect(request.redirectUri, ["code": code, "state": request.state, "iss": settings.issuer]))
    }

    /// The OAuth error for a request whose redirect URI is registered (RFC 6749 §4.1.2.1, with `iss`: RFC 9207).
    public func errorRedirect(_ problem: OpenIDProblem, _ request: AuthorizationRequest) -> String {
        errorRedirect(problem, redirectUri: request.redirectUri, state: request.state)
    }

    public func errorRedirect(_ problem: OpenIDProblem, redirectUri: String, state: String?) -> String {
        Self.redirect(redirectUri, ["error": problem.code, "error_description": problem.description, "state": state, "iss": settings.issuer])
    }

    /// `uri` with `parameters` added to its query (a registered URI may have one of its own, kept as it is).
    static func redirect(_ uri: String, _ parameters: KeyValuePairs<String, String?>) -> String {
        QueryEncoding.appending(parameters, to: uri)
    }
}
