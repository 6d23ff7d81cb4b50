import Foundation

/// An account's second factors (a mailbox, a phone number, an authenticator, recovery codes): enrolling, challenging,
/// checking and removing them, and the text messages that carry their codes. Every surface's second-factor step
/// comes here.
public struct SecondFactors: EngineKernel {
    public let engine: LatchkeyEngine

    var settings: EngineSettings { engine.settings }
}

extension LatchkeyEngine {
    /// The account's second factors.
    var factors: SecondFactors { SecondFactors(engine: self) }
}
