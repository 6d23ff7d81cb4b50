import Foundation

/// The native authentication surface (MSAL's `nativeAuth` wire): the journey's steps for apps, the token endpoint,
/// and enrolling an authenticator from a signed-in app. The journey is shared with the hosted pages; the tokens and
/// clients are the engine's.
public struct NativeAuthService: NativeAuthSurface, SignInJourney {
    public let engine: LatchkeyEngine

    public init(engine: LatchkeyEngine) { self.engine = engine }

    public var settings: EngineSettings { engine.settings }

    public func refresh(refreshToken: String?, scope: String?, caller: CallerInfo) async throws -> TokenSet {
        try await engine.tokens.refresh(refreshToken: refreshToken, scope: scope, caller: caller)
    }
    public func exchangeAuthorizationCode(code: String?, redirectUri: String?, codeVerifier: String?, client: ClientApplication,
                                          caller: CallerInfo) async throws -> TokenSet {
        try await engine.tokens.exchangeAuthorizationCode(code: code, redirectUri: redirectUri, codeVerifier: codeVerifier, client: client, caller: caller)
    }
}
