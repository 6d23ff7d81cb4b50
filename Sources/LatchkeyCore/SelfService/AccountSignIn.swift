import Foundation

/// Reaching the account page: a visitor without a session, or one whose sign-in is too old for a change (a step-up,
/// `prompt=login`), is sent through the hosted pages as the built-in client and comes back to where they were.
extension SelfService {
    /// The authorize URL and the sealed cookie for the callback; `next` is a path under the account page.
    public func startSignIn(next: String?, stepUp: Bool) -> (authorizeURL: String, cookie: String) {
        FirstPartySignIn.start(clientId: Self.clientId, redirectURI: Self.callback(settings.publicURL), scope: "openid",
                               next: Self.safeNext(next), prompt: stepUp ? "login" : nil, sealedWith: keys.interaction,
                               settings: settings, now: time.now())
    }

    /// Redeems the callback's code (it proves the sign-in this browser began ended); where to go back to.
    public func finishSignIn(code: String?, state: String?, cookie: String?, caller: CallerInfo) async throws -> String {
        guard let started = FirstPartySignIn.open(cookie: cookie, state: state, sealedWith: keys.interaction, now: time.now()),
              let client = engine.client(id: Self.clientId) else { throw AccountPageRefusal.signedOut }
        _ = try await engine.tokens.exchangeAuthorizationCode(code: code, redirectUri: Self.callback(settings.publicURL),
                                                              codeVerifier: started.verifier, client: client, caller: .selfService(caller))
        return Self.safeNext(started.next) ?? Self.path
    }

    /// Only a path of the account page itself is a place to return to (never another site).
    public static func safeNext(_ next: String?) -> String? {
        guard let next, next == path || next.hasPrefix(path + "/") || next.hasPrefix(path + "?") || next.hasPrefix(path + "#"),
              next.utf8.count <= 256, !next.contains("//"), !next.contains("\\") else { return nil }
        return next
    }
}
