import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// The OpenID provider's rules in the engine, on a real SQLite store and the manual clock: which requests may
/// redirect at all, PKCE, single-use codes bound to client and redirect URI, replay, expiry, prompts, consent and
/// sign-out.
@Suite struct OpenIDProviderTests {
    static let web = "33333333-3333-3333-3333-333333333333", thirdParty = "44444444-4444-4444-4444-444444444444"
    static let secret = String(repeating: "s", count: 40)
    static let verifier = String(repeating: "v", count: 43)

    static func harness() async throws -> EngineHarness {
        try await EngineHarness.make { settings in
            settings.clients += [
                ClientApplication(id: web, name: "web", redirectURIs: ["https://app.example/cb", "http://127.0.0.1/native"],
                                  postLogoutRedirectURIs: ["https://app.example/"], secretDigest: Digest.sha256(Array(secret.utf8))),
                ClientApplication(id: thirdParty, name: "other", redirectURIs: ["https://other.example/cb"], firstParty: false),
            ]
        }
    }

    static func parameters(client: String = web, redirect: String = "https://app.example/cb", extra: [(String, String)] = [])
        -> [(String, String)] {
        [("client_id", client), ("redirect_uri", redirect), ("response_type", "code"), ("scope", "openid email offline_access"),
         ("state", "st"), ("nonce", "nn"), ("code_challenge", Base64URL.encode(Digest.sha256(Array(verifier.utf8)))),
         ("code_challenge_method", "S256")] + extra
    }

    static func query(_ uri: String) -> [String: String] {
        Dictionary((URLComponents(string: uri)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
    }

    @Test func onlyARegisteredClientAndRedirectMayBeRedirectedTo() async throws {
        let h = try await Self.harness()
        guard case .failure(.errorPage("The sign-in link has no client_id.")) = h.pagesService.checkAuthorization([("redirect_uri", "https://app.example/cb")]) else {
            Issue.record("no client_id"); return
        }
        guard case .failure(.errorPage) = h.pagesService.checkAuthorization(Self.parameters(client: "unknown")) else { Issue.record("unknown client"); return }
        guard case .failure(.errorPage) = h.pagesService.checkAuthorization(Self.parameters(client: EngineHarness.client)) else {
            Issue.record("a client without redirect URIs"); return
        }
        for wrong in ["https://app.example/cb/", "https://app.example/cb?x=1", "https://evil.example/cb", "http://127.0.0.2:9/native",
                      "https://app.example:444/cb"] {
            guard case .failure(.errorPage) = h.pagesService.checkAuthorization(Self.parameters(redirect: wrong)) else {
                Issue.record("\(wrong) was accepted"); return
            }
        }
        // A registered loopback URI takes any port (RFC 8252 §7.3), and nothing else about it changes.
        guard case .success = h.pagesService.checkAuthorization(Self.parameters(redirect: "http://127.0.0.1:53123/native")) else {
            Issue.record("loopback port"); return
        }
        guard case .failure(.errorPage) = h.pagesService.checkAuthorization(Self.parameters(redirect: "http://127.0.0.1:53123/other")) else {
            Issue.record("loopback path"); return
        }
        guard case .failure(.errorPage) = h.pagesService.checkAuthorization(Self.parameters() + [("redirect_uri", "https://evil.example/cb")]) else {
            Issue.record("a second redirect_uri"); return
        }
    }

    @Test func afterTheRedirectIsTrustedErrorsGoBackToIt() async throws {
        let h = try await Self.harness()
        func error(_ parameters: [(String, String)]) -> String? {
            guard case .failure(.redirect(let problem, let uri, let state)) = h.pagesService.checkAuthorization(parameters) else { return nil }
            #expect(uri == "https://app.example/cb" && state == "st")
            return problem.code
        }
        let base = Self.parameters().filter { $0.0 != "response_type" }
        #expect(error(base + [("response_type", "token")]) == "unsupported_response_type")
        #expect(error(base) == "invalid_request")
        #expect(error(Self.parameters().filter { $0.0 != "code_challenge_method" } + [("code_challenge_method", "plain")]) == "invalid_request")
        #expect(error(Self.parameters(extra: [("prompt", "none login")])) == "invalid_request")
        #expect(error(Self.parameters(extra: [("max_age", "-1")])) == "invalid_request")
        #expect(error(Self.parameters(extra: [("scope", "openid admin")]).filter { $0 != ("scope", "openid email offline_access") }) == "invalid_request")
        #expect(error(Self.parameters(extra: [("request_uri", "https://x")])) == "invalid_request")
        // A confidential client may leave PKCE out; a public one may not.
        guard case .success = h.pagesService.checkAuthorization(Self.parameters().filter { !$0.0.hasPrefix("code_challenge") }) else {
            Issue.record("confidential without PKCE"); return
        }
        guard case .failure(.redirect(let problem, _, _)) = h.pagesService.checkAuthorization(
            Self.parameters(client: Self.thirdParty, redirect: "https://other.example/cb").filter { !$0.0.hasPrefix("code_challenge") }) else {
            Issue.record("public without PKCE"); return
        }
        #expect(problem == .invalidRequest("A public client must send a PKCE code_challenge (S256)."))
    }

    /// Signs a new account in at the pages: the browser session it ends in.
    static func signedIn(_ h: EngineHarness, _ email: String) async throws -> BrowserSessionRecord {
        let done = try await h.signUp(email)
        _ = try await h.nativeAuthService.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil, caller: h.caller)
        var caller = h.caller
        caller.dialect = .openID
        caller.audience = .browser  // the pages' journeys end in a browser session
        caller.clientId = web
        guard case .signedIn(let signIn) = try await h.pagesService.hostedPasswordSignIn(email: email, password: "a-strong-passphrase", caller: caller)
        else { throw LatchkeyError.invalidCredentials }
        #expect(signIn.amr == ["pwd"])
        return try await h.pagesService.openBrowserSession(signIn, caller: caller).session
    }

    func code(_ h: EngineHarness, _ session: BrowserSessionRecord) async throws -> String {
        guard case .success(let (_, request)) = h.pagesService.checkAuthorization(Self.parameters()) else { throw LatchkeyError.flowTokenInvalid }
        guard case .redirect(let uri) = try await h.pagesService.nextStep(h.pagesService.newInteraction(request, csrfCookie: "c"), session: session,
                                                                   caller: h.caller) else { throw LatchkeyError.flowTokenInvalid }
        let query = Self.query(uri)
        #expect(query["state"] == "st" && query["iss"] == h.engine.settings.issuer)
        return try #require(query["code"])
    }

    @Test func aCodeIsBoundUsedOnceAndItsReplayRevokesItsTokens() async throws {
        let h = try await Self.harness()
        let session = try await Self.signedIn(h, "rp@example.com")
        let client = try h.engine.tokens.authenticateClient(id: Self.web, secret: Self.secret)
        #expect(throws: LatchkeyError.openID(.invalidClient("The client secret is wrong."))) {
            try h.engine.tokens.authenticateClient(id: Self.web, secret: "nope")
        }
        #expect(throws: LatchkeyError.openID(.invalidClient("This client must authenticate with its secret."))) {
            try h.engine.tokens.authenticateClient(id: Self.web, secret: nil)
        }
        func exchange(_ code: String, redirect: String = "https://app.example/cb", verifier: String? = Self.verifier) async throws -> TokenSet {
            try await h.engine.tokens.exchangeAuthorizationCode(code: code, redirectUri: redirect, codeVerifier: verifier, client: client, caller: h.caller)
        }
        // A wrong verifier, or another redirect URI, spends the code.
        let first = try await code(h, session)
        await #expect(throws: LatchkeyError.openID(.invalidGrant("code_verifier does not match."))) {
            _ = try await exchange(first, verifier: String(repeating: "w", count: 43))
        }
        await #expect(throws: LatchkeyError.self) { _ = try await exchange(first) }
        let second = try await code(h, session)
        await #expect(throws: LatchkeyError.openID(.invalidGrant("redirect_uri differs from the one the code was requested with."))) {
            _ = try await exchange(second, redirect: "https://app.example/other")
        }
        // Expired after 60 s.
        let late = try await code(h, session)
        h.time.advance(seconds: 61)
        await #expect(throws: LatchkeyError.openID(.invalidGrant("The code is unknown or expired."))) { _ = try await exchange(late) }

        let good = try await code(h, session)
        let tokens = try await exchange(good)
        let id = try #require(JWT.verify(tokens.idToken ?? "", keys: h.engine.signingKeys))
        #expect(id["nonce"] == .string("nn") && id["amr"] == .array([.string("pwd")]) && id["acr"] == .string("1"))
        #expect(id["auth_time"] == .int(Int(session.authTime.timeIntervalSince1970)))
        #expect(id["at_hash"] == .string(Base64URL.encode(Digest.sha256(Array(tokens.accessToken.utf8)).prefix(16))))
        #expect(try await h.pagesService.introspect(token: tokens.refreshToken, client: client)["active"] == .bool(true))
        #expect(try await h.pagesService.introspect(token: tokens.accessToken, client: client)["sub"] == .string(tokens.userId))
        await #expect(throws: LatchkeyError.openID(.invalidGrant("The code was used before; the tokens it gave are revoked."))) {
            _ = try await exchange(good)
        }
        #expect(try await h.pagesService.introspect(token: tokens.refreshToken, client: client) == ["active": .bool(false)])
    }

    @Test func promptsMaxAgeConsentAndSignOut() async throws {
        let h = try await Self.harness()
        guard case .success(let (_, silent)) = h.pagesService.checkAuthorization(Self.parameters(extra: [("prompt", "none")])) else { return }
        let interaction = h.pagesService.newInteraction(silent, csrfCookie: "c")
        guard case .redirect(let refused) = try await h.pagesService.nextStep(interaction, session: nil, caller: h.caller) else {
            Issue.record("prompt=none without a session"); return
        }
        #expect(Self.query(refused)["error"] == "login_required")
        let session = try await Self.signedIn(h, "prompts@example.com")
        guard case .success(let (_, aged)) = h.pagesService.checkAuthorization(Self.parameters(extra: [("max_age", "60")])) else { return }
        h.time.advance(seconds: 61)
        #expect(try await h.pagesService.nextStep(h.pagesService.newInteraction(aged, csrfCookie: "c"), session: session, caller: h.caller) == .signIn)
        var fresh = h.pagesService.newInteraction(aged, csrfCookie: "c")
        fresh.signedInSession = session.id  // signed in during this visit: enough for max_age and prompt=login
        guard case .redirect = try await h.pagesService.nextStep(fresh, session: session, caller: h.caller) else { Issue.record("fresh"); return }

        // A third-party client asks once per set of scopes.
        let other = Self.parameters(client: Self.thirdParty, redirect: "https://other.example/cb")
        guard case .success(let (_, asked)) = h.pagesService.checkAuthorization(other),
              case .success(let (_, silentAsk)) = h.pagesService.checkAuthorization(other + [("prompt", "none")]) else { return }
        let visit = h.pagesService.newInteraction(asked, csrfCookie: "c")
        #expect(try await h.pagesService.nextStep(visit, session: session, caller: h.caller) == .consent(scopes: ["openid", "email", "offline_access"]))
        guard case .redirect(let needed) = try await h.pagesService.nextStep(h.pagesService.newInteraction(silentAsk, csrfCookie: "c"), session: session,
                                                                      caller: h.caller) else { return }
        #expect(Self.query(needed)["error"] == "consent_required")
        #expect(Self.query(try await h.pagesService.declineConsent(visit, caller: h.caller))["error"] == "access_denied")
        try await h.pagesService.grantConsent(visit, userId: session.userId, caller: h.caller)
        guard case .redirect(let granted) = try await h.pagesService.nextStep(visit, session: session, caller: h.caller) else { return }
        #expect(Self.query(granted)["code"] != nil)

        // Signing out ends the session, the refresh tokens its codes gave and the codes not yet exchanged (spent).
        let client = try h.engine.tokens.authenticateClient(id: Self.web, secret: Self.secret)
        func exchange(_ code: String) async throws -> TokenSet {
            try await h.engine.tokens.exchangeAuthorizationCode(code: code, redirectUri: "https://app.example/cb", codeVerifier: Self.verifier,
                                                              client: client, caller: h.caller)
        }
        let tokens = try await exchange(try await code(h, session))
        let pending = try await code(h, session)
        try await h.engine.tokens.endBrowserSession(session, caller: h.caller)
        #expect(try await h.pagesService.introspect(token: tokens.refreshToken, client: client) == ["active": .bool(false)])
        await #expect(throws: LatchkeyError.openID(.invalidGrant("The sign-in this code came from has ended."))) { _ = try await exchange(pending) }
        await #expect(throws: LatchkeyError.openID(.invalidGrant("The code was used before; the tokens it gave are revoked."))) {
            _ = try await exchange(pending)
        }
        #expect(try await h.pagesService.browserSession(cookie: "anything") == nil)
    }

    @Test func theInteractionIsSealedAndBoundToItsBrowser() async throws {
        let h = try await Self.harness()
        guard case .success(let (_, request)) = h.pagesService.checkAuthorization(Self.parameters()) else { return }
        let sealed = h.pagesService.seal(h.pagesService.newInteraction(request, csrfCookie: "mine"))
        #expect(h.pagesService.openInteraction(sealed, csrfCookie: "mine")?.request == request)
        #expect(h.pagesService.openInteraction(sealed, csrfCookie: "theirs") == nil)
        #expect(h.pagesService.openInteraction(String(sealed.dropLast(2)) + "AA", csrfCookie: "mine") == nil)
        h.time.advance(seconds: Double(h.engine.settings.openID.interactionTTLSeconds + 1))
        #expect(h.pagesService.openInteraction(sealed, csrfCookie: "mine") == nil)
        #expect(h.pagesService.csrfTokenMatches(h.pagesService.csrfToken(for: "mine"), cookie: "mine"))
        #expect(!h.pagesService.csrfTokenMatches(h.pagesService.csrfToken(for: "mine"), cookie: "theirs"))
        #expect(!h.pagesService.csrfTokenMatches(nil, cookie: "mine"))
    }
}

/// Clients made by the operator: usable at once, their secret shown once and rotated, the configuration's untouchable.
@Suite struct StoredClientTests {
    @Test func aClientMadeByTheOperatorSignsInAndIsRotatedAndDeleted() async throws {
        let h = try await OpenIDProviderTests.harness()
        var new = NewClient(name: "Reports")
        new.redirectURIs = ["https://reports.example/cb"]
        let (client, secret) = try await h.operatorService.adminCreateClient(new, caller: h.caller)
        let first = try #require(secret)
        #expect(try h.engine.tokens.authenticateClient(id: client.id, secret: first).name == "Reports")
        guard case .success = h.pagesService.checkAuthorization(OpenIDProviderTests.parameters(client: client.id, redirect: "https://reports.example/cb"))
        else { Issue.record("the new client's redirect"); return }
        let second = try await h.operatorService.adminRotateClientSecret(client.id, caller: h.caller)
        #expect(throws: LatchkeyError.self) { try h.engine.tokens.authenticateClient(id: client.id, secret: first) }
        #expect(try h.engine.tokens.authenticateClient(id: client.id, secret: second).id == client.id)
        await #expect(throws: LatchkeyEngine.AdminError.clientInConfiguration) {
            try await h.operatorService.adminDeleteClient(OpenIDProviderTests.web, caller: h.caller)
        }
        var bad = NewClient(name: "Evil")
        bad.redirectURIs = ["javascript:alert(1)"]
        await #expect(throws: LatchkeyEngine.AdminError.self) { _ = try await h.operatorService.adminCreateClient(bad, caller: h.caller) }
        try await h.operatorService.adminDeleteClient(client.id, caller: h.caller)
        #expect(throws: LatchkeyError.unknownClient) { try h.engine.requireClient(client.id) }
        await #expect(throws: LatchkeyEngine.AdminError.clientNotFound) { try await h.operatorService.adminDeleteClient(client.id, caller: h.caller) }
    }
}

/// Which redirect URIs a client may register and which a request may name: a loopback URI at any port (RFC 8252),
/// and test mode's own `http://HOST/*` at any path, which configuration refuses to anyone else.
@Suite struct RedirectURITests {
    @Test func loopbackPortsMatchAndOnlyTheBuiltInWildcardMatchesAnyPath() {
        #expect(PagesService.redirectMatches("http://127.0.0.1:5555/callback", registered: ["http://127.0.0.1/callback"]))
        #expect(!PagesService.redirectMatches("http://127.0.0.1:5555/other", registered: ["http://127.0.0.1/callback"]))
        #expect(PagesService.redirectMatches("http://localhost:9/any/path", registered: ["http://localhost/*"]))
        #expect(!PagesService.redirectMatches("https://example.com/cb", registered: ["http://localhost/*"]))
        #expect(ClientApplication.redirectURIProblem("http://127.0.0.1/*")?.contains("wildcard") == true)
        #expect(ClientApplication.redirectURIProblem("http://127.0.0.1/callback") == nil)
    }
}
