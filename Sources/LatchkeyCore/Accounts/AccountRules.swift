import Foundation

/// The account model: one place that answers what may get into an account and what ends when it changes — sign-up
/// admission and creation, the one password check and the lockout, new passwords and what a reset ends, what proving
/// an address removes, address changes, attributes and custom fields, which grants a client may use, and what counts
/// as a second factor after a first.
public struct AccountRules: EngineKernel {
    public let engine: LatchkeyEngine

    var settings: EngineSettings { engine.settings }
    var passwords: PasswordHashing { engine.passwords }
}

extension LatchkeyEngine {
    /// The account model's rules.
    var accounts: AccountRules { AccountRules(engine: self) }
}
