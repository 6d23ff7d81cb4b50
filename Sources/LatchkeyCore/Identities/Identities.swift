import Foundation

/// An account's identities (anonymous, Apple, Google, OpenID issuers, custom JWTs, login functions, API keys): verifying
/// a foreign token, signing in or signing up by one, linking and unlinking. Every surface's identity logins come here.
public struct Identities: EngineKernel {
    public let engine: LatchkeyEngine

    var settings: EngineSettings { engine.settings }
}

extension LatchkeyEngine {
    /// The account's identities.
    var identity: Identities { Identities(engine: self) }
}
