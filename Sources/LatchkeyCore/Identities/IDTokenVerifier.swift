import Foundation
import JWTKit
import Logging

/// Where a verifier's keys come from.
enum VerifierKeys: Sendable {
    /// An issuer's published keys (JWKS), by key id.
    case published(KeySetCache)
    /// The one key the operator configured for a custom JWT (an HS256 secret, a PEM public key) and its one algorithm.
    case fixed(JWTKeyCollection, algorithm: String)
}

/// The strategy for signed tokens from others: OpenID issuers' ID tokens (Apple, Google, any configured one) and the
/// operator's own JWTs (App Services `custom-token`). A token signed by a key of the issuer's with its algorithm
/// (RS256 or ES256 from a key set; never `none`, never a MAC keyed with a public key), for one of our audiences,
/// from the issuer, current within a minute's leeway, with the client's nonce when it sent one. Its `sub` names
/// the identity.
struct IDTokenVerifier: Sendable {
    let issuer: TokenAcceptance
    let keys: VerifierKeys
    let time: any TimeSource

    /// Larger than any real ID token; a bigger one is refused before any parsing.
    static let maxTokenBytes = 16 * 1024
    static let leeway = 60.0
    static let allowedAlgorithms = ["RS256": "RSA", "ES256": "EC"]

    func verify(_ token: String, nonce: String? = nil) async throws -> VerifiedIdentity {
        guard token.utf8.count <= Self.maxTokenBytes else { throw LatchkeyError.identityRefused("token too large") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
              let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else {
            throw LatchkeyError.identityRefused("token is not a JWT")
        }
        let collection: JWTKeyCollection
        switch keys {
        case .fixed(let key, let algorithm):
            guard header.alg == algorithm else {
                throw LatchkeyError.identityRefused("signing algorithm \(Self.printable(header.alg)) is not accepted")
            }
            collection = key
        case .published(let cache):
            // Only what the issuers use: never `none`, never a MAC keyed with a public key.
            guard let keyType = Self.allowedAlgorithms[header.alg] else {
                throw LatchkeyError.identityRefused("signing algorithm \(Self.printable(header.alg)) is not accepted")
            }
            guard let kid = header.kid, !kid.isEmpty else { throw LatchkeyError.identityRefused("token names no signing key") }
            let (found, type, algorithm): (JWTKeyCollection, String, String?)
            do {
                (found, type, algorithm) = try await cache.key(kid)
            } catch .unknownKey {
                throw LatchkeyError.identityRefused("unknown signing key")
            } catch {
                throw LatchkeyError.identityProviderUnavailable(issuer.name)
            }
            guard type == keyType, algorithm == nil || algorithm == header.alg else {
                throw LatchkeyError.identityRefused("signing algorithm does not match the key")
            }
            collection = found
        }
        let claims: Claims
        do { claims = try await collection.verify(token, as: Claims.self) } catch {
            throw LatchkeyError.identityRefused("signature invalid")
        }
        var identity = try check(claims, nonce: nonce)
        if !issuer.claims.isEmpty, let payload = Base64URL.decode(parts[1]),
           case .object(let all)? = try? JSONDecoder().decode(JSONValue.self, from: Data(payload)) {
            identity.profile = Self.mapped(issuer.claims, from: all)
        }
        return identity
    }

    /// Profile fields from the token's claims by dot path (`user_data.name`); numbers and booleans as text, since
    /// profile values are strings on the wire.
    static func mapped(_ claims: [String: String], from payload: [String: JSONValue]) -> [String: String] {
        var profile: [String: String] = [:]
        for (field, path) in claims {
            var value: JSONValue? = .object(payload)
            for part in path.split(separator: ".") { value = value?.objectValue?[String(part)] }
            switch value {
            case .string(let text)?: profile[field] = String(text.prefix(4096))
            case .int(let number)?: profile[field] = String(number)
            case .double(let number)?: profile[field] = String(number)
            case .bool(let flag)?: profile[field] = String(flag)
            default: continue
            }
        }
        return profile
    }

    private func check(_ claims: Claims, nonce: String?) throws -> VerifiedIdentity {
        let now = time.now().timeIntervalSince1970
        if !issuer.issuers.isEmpty, !issuer.issuers.contains(claims.iss ?? "") { throw LatchkeyError.identityRefused("issuer not accepted") }
        guard claims.aud.value.contains(where: issuer.audiences.contains) else {
            throw LatchkeyError.identityRefused("audience not accepted")
        }
        guard claims.exp + Self.leeway > now else { throw LatchkeyError.identityRefused("token expired") }
        if let nbf = claims.nbf, nbf - Self.leeway > now { throw LatchkeyError.identityRefused("token not valid yet") }
        if let iat = claims.iat, iat - Self.leeway > now { throw LatchkeyError.identityRefused("token issued in the future") }
        if let nonce, claims.nonce != nonce { throw LatchkeyError.identityRefused("nonce does not match") }
        guard !claims.sub.isEmpty, claims.sub.utf8.count <= 255 else { throw LatchkeyError.identityRefused("token has no usable subject") }
        let email = issuer.trustsEmail && claims.emailVerified?.value == true ? claims.email.flatMap(EmailAddress.normalize) : nil
        return VerifiedIdentity(provider: issuer.name, subject: claims.sub, verifiedEmail: email, name: claims.name)
    }

    /// An algorithm name as the client sent it, cut short and without control characters, for the error message.
    private static func printable(_ text: String) -> String {
        String(text.prefix(16).unicodeScalars.filter { $0.properties.generalCategory != .control }.map(Character.init))
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String?
    }

    private struct Claims: JWTPayload {
        var iss: String?
        var sub: String
        var aud: AudienceClaim
        var exp: Double
        var nbf: Double?
        var iat: Double?
        var nonce: String?
        var email: String?
        /// Apple sends `"true"`, Google `true`: jwt-kit's BoolClaim reads both.
        var emailVerified: BoolClaim?
        var name: String?

        enum CodingKeys: String, CodingKey {
            case iss, sub, aud, exp, nbf, iat, nonce, email, name
            case emailVerified = "email_verified"
        }

        /// The claims are checked against the engine's clock in `check`, not jwt-kit's.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
