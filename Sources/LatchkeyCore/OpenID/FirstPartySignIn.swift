import Foundation

/// A built-in client of this provider (the console, the account page) signing a browser in through the hosted pages,
/// as any app would: the state, the PKCE verifier and where to go afterwards travel sealed in a short-lived cookie,
/// and the code is redeemed inside the process.
struct FirstPartySignIn: Codable {
    var state: String
    var verifier: String
    var next: String?
    var expiresAt: Date

    /// The authorize URL for `clientId` and the sealed cookie the callback must bring back. `prompt: "login"` asks
    /// the person to sign in again (a step-up) even with a live browser session.
    static func start(clientId: String, redirectURI: String, scope: String, next: String?, prompt: String? = nil,
                      sealedWith box: SecretBox, settings: EngineSettings, now: Date) -> (authorizeURL: String, cookie: String) {
        let started = FirstPartySignIn(state: SecureRandom.token(byteCount: 16), verifier: SecureRandom.token(byteCount: 32), next: next,
                                       expiresAt: now + Double(settings.openID.interactionTTLSeconds))
        // Encoding a plain Codable struct cannot fail.
        let cookie = Base64URL.encode(box.seal(Array((try? JSONEncoder().encode(started)) ?? Data())))
        let url = PagesService.redirect("\(settings.publicURL)/oauth2/v2.0/authorize", [
            "client_id": clientId, "redirect_uri": redirectURI, "response_type": "code", "scope": scope, "state": started.state,
            "code_challenge": Base64URL.encode(Digest.sha256(Array(started.verifier.utf8))), "code_challenge_method": "S256",
            "prompt": prompt,
        ])
        return (url, cookie)
    }

    /// The sign-in this browser began, when the cookie is ours, live, and the callback's state is its own.
    static func open(cookie: String?, state: String?, sealedWith box: SecretBox, now: Date) -> FirstPartySignIn? {
        guard let cookie, cookie.utf8.count <= 2048, let sealed = Base64URL.decode(cookie), let plain = box.open(sealed),
              let started = try? JSONDecoder().decode(FirstPartySignIn.self, from: Data(plain)), started.expiresAt > now,
              let state, Digest.constantTimeEqual(Array(state.utf8), Array(started.state.utf8)) else { return nil }
        return started
    }
}
