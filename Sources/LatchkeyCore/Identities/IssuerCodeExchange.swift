import Foundation

extension Identities {
    /// An authorization code exchanged for the issuer's ID token (outside any transaction). Only for issuers with a
    /// configured client secret.
    func exchangeCode(_ code: String, provider: String) async throws -> String {
        guard let exchange = settings.identities.providers[provider]?.codeExchange, let codeExchanger = engine.codeExchanger else {
            throw LatchkeyError.identityRefused("authorization codes are not accepted for \(provider): no client secret is configured")
        }
        guard !code.isEmpty, code.utf8.count <= 2048 else { throw LatchkeyError.identityRefused("authorization code malformed") }
        let answer: CodeExchangeAnswer
        do { answer = try await codeExchanger.exchange(code: code, with: exchange) } catch {
            logger.warning("code exchange failed", metadata: ["issuer": "\(provider)", "error": "\(error)"])
            throw LatchkeyError.identityProviderUnavailable(provider)
        }
        guard case .idToken(let token) = answer else { throw LatchkeyError.identityRefused("the authorization code was refused") }
        return token
    }
}
