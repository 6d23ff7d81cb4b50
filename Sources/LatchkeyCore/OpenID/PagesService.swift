import Foundation

/// The OpenID provider and its hosted pages: `/authorize` and the visit it starts (sign-in, second factor, consent),
/// the browser session, upstream issuers, end session, introspection, revocation and userinfo. Its use cases live
/// here; the sign-in journey's steps, the token endpoint and the mailed links are the engine's, shared with the apps'
/// surfaces.
public struct PagesService: PagesSurface, SignInJourney {
    public let engine: LatchkeyEngine

    public init(engine: LatchkeyEngine) { self.engine = engine }

    public var settings: EngineSettings { engine.settings }
    public var keyRing: SigningKeyRing { engine.keyRing }

    // Shared with the apps' surfaces (the clients and the mailed links come with the surfaces' protocols).
    public func resetPassword(appId: String, token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws {
        try await engine.proofs.resetPassword(appId: appId, token: token, tokenId: tokenId, password: password, caller: caller)
    }
    public func endBrowserSession(_ session: BrowserSessionRecord, caller: CallerInfo) async throws {
        try await engine.tokens.endBrowserSession(session, caller: caller)
    }
}
