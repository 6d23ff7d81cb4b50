import Foundation
import JWTKit
import Logging

/// Builds one verifier per configured issuer: OpenID providers from their key sets, the operator's JWT issuers from
/// their configured key.
enum VerifierFactory {
    static func verifiers(_ settings: IdentitySettings, fetcher: (any KeySetFetcher)?, time: any TimeSource,
                          logger: Logger) async throws -> [String: IDTokenVerifier] {
        var verifiers: [String: IDTokenVerifier] = [:]
        if let fetcher {
            for (name, issuer) in settings.providers {
                let cache = KeySetCache(name: name, url: issuer.jwksURL, caFile: issuer.caFile, fetcher: fetcher, time: time, logger: logger)
                verifiers[name] = IDTokenVerifier(issuer: TokenAcceptance(name: name, issuers: issuer.issuers, audiences: issuer.audiences,
                                                                      trustsEmail: issuer.trustsEmail),
                                                  keys: .published(cache), time: time)
            }
        }
        for (name, custom) in settings.customJWT {
            let policy = TokenAcceptance(name: name, issuers: custom.issuer.map { [$0] } ?? [], audiences: custom.audiences,
                                     trustsEmail: custom.trustsEmail, claims: custom.claims)
            switch custom.keys {
            case .jwks(let url, let caFile):
                guard let fetcher else { continue }
                let cache = KeySetCache(name: name, url: url, caFile: caFile, fetcher: fetcher, time: time, logger: logger)
                verifiers[name] = IDTokenVerifier(issuer: policy, keys: .published(cache), time: time)
            case .hs256, .publicKeyPEM:
                let (collection, algorithm) = try await fixedKey(custom.keys)
                verifiers[name] = IDTokenVerifier(issuer: policy, keys: .fixed(collection, algorithm: algorithm), time: time)
            }
        }
        return verifiers
    }

    /// The configured key in a collection of its own, and the one algorithm it verifies. Throws for a PEM that is
    /// neither an RSA nor a P-256 public key (the configuration check calls this too).
    static func fixedKey(_ keys: CustomJWTIssuer.Keys) async throws -> (JWTKeyCollection, String) {
        let collection = JWTKeyCollection()
        switch keys {
        case .hs256(let secret):
            await collection.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
            return (collection, "HS256")
        case .publicKeyPEM(let pem):
            if let rsa = try? Insecure.RSA.PublicKey(pem: pem) {
                await collection.add(rsa: rsa, digestAlgorithm: .sha256)
                return (collection, "RS256")
            }
            await collection.add(ecdsa: try ES256PublicKey(pem: pem))
            return (collection, "ES256")
        case .jwks:
            throw LatchkeyError.identityRefused("a key set has no fixed key")
        }
    }
}

extension CustomJWTIssuer {
    /// Whether the configured key can verify tokens: for the configuration check, before the server starts.
    public static func keyIsUsable(_ keys: Keys) async -> Bool {
        if case .jwks = keys { return true }
        return (try? await VerifierFactory.fixedKey(keys)) != nil
    }
}
