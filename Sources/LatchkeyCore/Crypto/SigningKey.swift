import Crypto
import Foundation

public enum CryptoError: Error, Sendable { case failed(String) }

/// An ES256 (ECDSA P-256 / SHA-256) JWT signing key, held by swift-crypto. Its P-256 is BoringSSL's, which checks a
/// signature in four fifths of the time OpenSSL 3's EVP interface takes here (bench/floor: 34 against 43 µs), and
/// signs and checks the raw r‖s form JWTs use without a DER round trip.
public final class SigningKey: Sendable {
    let privateKey: P256.Signing.PrivateKey
    let publicKey: P256.Signing.PublicKey
    public let kid: String
    public let algorithm = "ES256"
    /// The public JWK (RFC 7517) as published at the JWKS endpoint; computed once.
    public let publicJWK: [String: String]
    /// The JWT protected header naming this key, encoded once: every ID token this key signs starts with it.
    public let jwtHeaderSegment: String
    /// The same with `typ: at+jwt` (RFC 9068): access tokens are typed apart, so none passes for an ID token.
    public let accessTokenHeaderSegment: String

    private init(_ key: P256.Signing.PrivateKey) {
        privateKey = key
        publicKey = key.publicKey
        // x9.63 form: 0x04, then x and y, 32 bytes each.
        let point = Array(publicKey.x963Representation)
        let x = Base64URL.encode(Array(point[1...32])), y = Base64URL.encode(Array(point[33...64]))
        // RFC 7638 thumbprint: stable kid derived from the public key itself.
        let canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(x)\",\"y\":\"\(y)\"}"
        let kid = Base64URL.encode(Digest.sha256(Array(canonical.utf8)))
        self.kid = kid
        self.publicJWK = ["kty": "EC", "crv": "P-256", "x": x, "y": y, "kid": kid, "use": "sig", "alg": "ES256"]
        self.jwtHeaderSegment = JWT.headerSegment(algorithm: "ES256", kid: kid)
        self.accessTokenHeaderSegment = JWT.headerSegment(algorithm: "ES256", kid: kid, type: "at+jwt")
    }

    public static func generate() throws -> SigningKey {
        SigningKey(P256.Signing.PrivateKey())
    }

    /// A PKCS#8 (`PRIVATE KEY`, as `privateKeyPEM` writes and earlier versions stored) or SEC 1 (`EC PRIVATE KEY`) PEM.
    public static func load(pem: String) throws -> SigningKey {
        do { return SigningKey(try P256.Signing.PrivateKey(pemRepresentation: pem)) } catch {
            throw CryptoError.failed("not a P-256 private key in PEM (\(error))")
        }
    }

    /// PKCS#8 PEM of the private key, for persistence.
    public func privateKeyPEM() throws -> String { privateKey.pemRepresentation }

    /// JWS signature in the raw r||s form JWTs use (not DER).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        do { return Array(try privateKey.signature(for: message).rawRepresentation) } catch {
            throw CryptoError.failed("ECDSA signature (\(error))")
        }
    }

    /// Verifies a raw r||s signature made by this key.
    public func verify(_ message: [UInt8], signature: [UInt8]) -> Bool {
        guard signature.count == 64, let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
        return publicKey.isValidSignature(parsed, for: message)
    }
}
