import Foundation

/// The engine's secret keys, one per purpose, all derived from the one server key kept in the store: a key serves a
/// single feature, so a flaw in one use cannot be turned on another.
struct EngineKeys: Sendable {
    /// HMACs under which codes, continuation, refresh and session tokens are stored.
    let token: MACKey
    /// Seals queued mail bodies.
    let mail: SecretBox
    /// Seals authenticator (TOTP) secrets at rest.
    let secondFactor: SecretBox
    /// Seals the hosted pages' interactions; `page` keys their CSRF tokens.
    let interaction: SecretBox
    let page: MACKey
    /// Seals the operator console's session cookie; `console` keys its CSRF tokens.
    let consoleSession: SecretBox
    let console: MACKey
    /// Signs App Services refresh tokens (JWTs the Realm SDKs parse; never published).
    let appRefreshTokens: AppRefreshTokens

    init(serverKey: [UInt8]) {
        func derived(_ purpose: String) -> [UInt8] { Digest.hmacSHA256(key: serverKey, data: Array(purpose.utf8)) }
        token = MACKey(derived("latchkey token hmac"))
        mail = SecretBox(key: derived("latchkey outbox seal"))
        secondFactor = SecretBox(key: derived("latchkey second factor seal"))
        interaction = SecretBox(key: derived("latchkey interaction seal"))
        page = MACKey(derived("latchkey page mac"))
        consoleSession = SecretBox(key: derived("latchkey console seal"))
        console = MACKey(derived("latchkey console mac"))
        appRefreshTokens = AppRefreshTokens(serverKey: serverKey)
    }
}
