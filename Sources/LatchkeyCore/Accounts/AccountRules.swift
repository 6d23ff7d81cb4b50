import Foundation

/// The account model: one place that answers what may get into an account and what ends when it changes — sign-up
/// admission and creation, the one password check and the lockout, new passwords and what a reset ends, what proving
/// an address removes, address changes, attributes and custom fields, which grants a client may use, and what counts
/// as a second factor after a first.
public struct AccountRules: EngineKernel {
    public let engine: LatchkeyEngine

    var settings: EngineSettings { engine.settings }
    var passwords: PasswordHashing { engine.passwords }

    /// A way in changes only after a recent sign-in with a factor the account has (`mfa.recent_sign_in_seconds`): a
    /// stolen token or an old browser session adds nothing (RFC 9470: sign in again, then retry).
    func requireRecentSignIn(at signedIn: Date?) throws {
        let window = settings.mfa.recentSignInSeconds
        guard let signedIn, time.now().timeIntervalSince(signedIn) <= Double(window) else {
            throw LatchkeyError.secondFactor(.signInNotRecent(maxAgeSeconds: window))
        }
    }
}

extension LatchkeyEngine {
    /// The account model's rules.
    var accounts: AccountRules { AccountRules(engine: self) }
}
