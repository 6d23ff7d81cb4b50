import Foundation

/// The native authentication surface (MSAL's `nativeAuth` wire): the journey's steps for apps, its grants at the token
/// endpoint, and enrolling an authenticator from a signed-in app (the OAuth grants are `TokenEndpointService`'s). The journey is shared with the hosted pages; the tokens and
/// clients are the engine's.
public struct NativeAuthService: NativeAuthSurface, SignInJourney {
    public let engine: LatchkeyEngine

    public init(engine: LatchkeyEngine) { self.engine = engine }

    public var settings: EngineSettings { engine.settings }
}
