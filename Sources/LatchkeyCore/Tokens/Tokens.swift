import Foundation

/// The tokens every surface hands out and checks: the access, ID and refresh tokens the native API and the provider
/// mint (claims from the granted scope), the authorization code exchange, session tokens, and ending sessions.
public struct Tokens: EngineKernel {
    public let engine: LatchkeyEngine

    var settings: EngineSettings { engine.settings }
}

extension LatchkeyEngine {
    /// Minting, checking and ending tokens and sessions.
    var tokens: Tokens { Tokens(engine: self) }
}
