import Foundation

/// A sign-in handed to an upstream OpenID issuer (Apple, Google, any configured one) by redirect, in the issuer's own
/// authorization code flow with PKCE and a nonce. What the return needs (state, nonce, verifier, the visit to go on
/// with) travels sealed in a short-lived cookie, never through the issuer.
public struct UpstreamVisit: Codable, Sendable {
    public var provider: String
    var state: String
    var nonce: String
    var verifier: String
    /// The sealed interaction to go on with.
    public var interaction: String
    var expiresAt: Date
    /// Set when the account page links this issuer to the account signed in at the browser session of this id.
    public var linking: String?
}

extension PagesService {
    /// The issuers the sign-in page offers: those with an authorization endpoint and a client secret to exchange codes.
    public var upstreamProviders: [String] {
        settings.identities.providers.values.filter { $0.authorizationURL != nil && $0.codeExchange != nil }.map(\.name).sorted()
    }

    /// Where an issuer sends the browser back (register it at the issuer): one address per issuer, so an answer
    /// that comes back names the issuer it is from, and one issuer's answer cannot pass for another's (a mix-up).
    public func upstreamCallback(_ provider: String) -> String { settings.publicURL + "/ui/upstream/callback/" + provider }

    /// The redirect to the issuer, and the sealed visit for the cookie.
    public func beginUpstreamSignIn(provider: String, interaction: String) throws -> (redirect: String, cookie: String) {
        try beginUpstreamSignIn(provider: provider, interaction: interaction, linking: nil)
    }

    func beginUpstreamSignIn(provider: String, interaction: String, linking: String?) throws -> (redirect: String, cookie: String) {
        guard upstreamProviders.contains(provider), let issuer = settings.identities.providers[provider],
              let endpoint = issuer.authorizationURL, let exchange = issuer.codeExchange else {
            throw LatchkeyError.providerNotEnabled(provider)
        }
        let visit = UpstreamVisit(provider: provider, state: SecureRandom.token(), nonce: SecureRandom.token(), verifier: SecureRandom.token(byteCount: 48),
                                  interaction: interaction, expiresAt: time.now() + Double(settings.openID.interactionTTLSeconds),
                                  linking: linking)
        let challenge = Base64URL.encode(Digest.sha256(Array(visit.verifier.utf8)))
        // Apple names its scopes `name email` and answers a request for them only by form post.
        let apple = provider == "apple"
        let redirect = Self.redirect(endpoint, ["response_type": "code", "client_id": exchange.clientId, "redirect_uri": upstreamCallback(provider),
                                                "scope": apple ? "openid name email" : "openid email profile",
                                                "response_mode": apple ? "form_post" : nil, "state": visit.state, "nonce": visit.nonce,
                                                "code_challenge": challenge, "code_challenge_method": "S256"])
        let data = (try? JSONEncoder().encode(visit)) ?? Data()
        return (redirect, Base64URL.encode(keys.interaction.seal([UInt8](data))))
    }

    /// The visit sealed in the cookie, if it is ours and live.
    public func openUpstreamVisit(_ cookie: String?) -> UpstreamVisit? {
        guard let cookie, cookie.utf8.count <= 8192, let sealed = Base64URL.decode(cookie), let plain = keys.interaction.open(sealed),
              let visit = try? JSONDecoder().decode(UpstreamVisit.self, from: Data(plain)), visit.expiresAt > time.now() else { return nil }
        return visit
    }

    /// The issuer's answer (`upstreamIdentity`): the identity signs in by P's rules (its account, a link by verified address when
    /// allowed, or a new account). A client that asks for a second factor then gets it asked, as after a password.
    /// `callback` is the issuer the answer came back for (its callback path; nil on the address every issuer shared
    /// before), `iss` the issuer the answer names (RFC 9207), checked when the issuer sends it.
    public func finishUpstreamSignIn(_ visit: UpstreamVisit, callback: String?, iss: String?, state: String?, code: String?, error: String?,
                                     client: ClientApplication, caller: CallerInfo) async throws -> SignInOutcome {
        let identity = try await upstreamIdentity(visit, callback: callback, iss: iss, state: state, code: code, error: error)
        let user = try await engine.identity.signIn(with: identity, caller: caller) { login, _ in login.user }
        return try await afterUpstream(user, provider: visit.provider, client: client, caller: caller)
    }

    /// The identity the issuer's answer proves: the state must be the visit's, the answer from the issuer the visit
    /// went to; the code is exchanged (outside any transaction) and the ID token checked with the nonce.
    func upstreamIdentity(_ visit: UpstreamVisit, callback: String?, iss: String?, state: String?, code: String?,
                          error: String?) async throws -> VerifiedIdentity {
        guard let state, Digest.constantTimeEqual(Array(state.utf8), Array(visit.state.utf8)) else {
            throw LatchkeyError.identityRefused("the answer does not belong to this sign-in (state)")
        }
        if let callback, callback != visit.provider {
            throw LatchkeyError.identityRefused("the answer came back for another issuer than the one this sign-in went to")
        }
        if let iss, !(settings.identities.providers[visit.provider]?.issuers.contains(iss) ?? false) {
            throw LatchkeyError.identityRefused("the answer names another issuer (iss)")
        }
        if let error { throw LatchkeyError.identityRefused("the provider answered \(error.prefix(64).filter(\.isLetter))") }
        guard let code, !code.isEmpty, code.utf8.count <= 2048, let exchange = settings.identities.providers[visit.provider]?.codeExchange,
              let codeExchanger = engine.codeExchanger else {
            throw LatchkeyError.identityRefused("no authorization code")
        }
        let answer: CodeExchangeAnswer
        do { answer = try await codeExchanger.exchange(code: code, with: exchange, verifier: visit.verifier, redirectURI: upstreamCallback(visit.provider)) } catch {
            logger.warning("upstream code exchange failed", metadata: ["issuer": "\(visit.provider)", "error": "\(error)"])
            throw LatchkeyError.identityProviderUnavailable(visit.provider)
        }
        guard case .idToken(let token) = answer else { throw LatchkeyError.identityRefused("the authorization code was refused") }
        return try await engine.identity.verifyIDToken(token, provider: visit.provider, nonce: visit.nonce)
    }

    /// A federated sign-in that needs a second factor goes on as a sign-in flow past its first factor.
    private func afterUpstream(_ user: UserRecord, provider: String, client: ClientApplication, caller: CallerInfo) async throws -> SignInOutcome {
        let proved = SessionProof(amr: AuthenticationMethods.federated, authTime: time.now())
        guard try await engine.accounts.assurance(.singleSignOn(client.mfa), for: user, proved: proved, in: reader) != .enough else {
            return .signedIn(BrowserSignIn(user: user, amr: AuthenticationMethods.federated))
        }
        // The second factor runs as a sign-in flow that has passed its first factor; it is stored when that step
        // follows (`advance` inserts a transient flow).
        let flow = transientFlow(.signIn, email: user.email ?? "", userId: user.id, state: .started(
            client: JourneyClient(id: client.id, acceptsCode: true, acceptsPassword: false,
                                  capabilities: ChallengeTypes.knownCapabilities.sorted(), audience: .browser),
            details: .signIn))
        return try await transaction { tx in
            try await self.afterFirstFactor(flow, user: user, passed: .federated(by: provider), client: client, scope: nil,
                                            caller: caller, in: tx)
        }
    }

    /// How an issuer is named to people: Apple and Google by their names, others by theirs, capitalized.
    public static func providerLabel(_ provider: String) -> String {
        switch provider {
        case "apple": "Apple"
        case "google": "Google"
        default: provider.prefix(1).uppercased() + provider.dropFirst()
        }
    }
}
