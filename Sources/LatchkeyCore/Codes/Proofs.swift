import Foundation

/// What proves a mailbox or a phone: one-time codes (issued, mailed or texted, checked with capped attempts) and
/// mailed links (issued, redeemed once, followed to confirm an address or set a new password).
public struct Proofs: EngineKernel {
    public let engine: LatchkeyEngine

    var settings: EngineSettings { engine.settings }
}

extension LatchkeyEngine {
    /// Codes and mailed links.
    var proofs: Proofs { Proofs(engine: self) }
}
