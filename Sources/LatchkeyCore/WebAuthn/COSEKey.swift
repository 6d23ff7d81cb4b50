import Crypto
import CryptoExtras
import Foundation

/// A credential's public key as COSE (RFC 9053) carries it, for the three algorithms accepted: ES256 (-7, P-256),
/// EdDSA (-8, Ed25519) and RS256 (-257, RSA PKCS#1 v1.5 with SHA-256, at least 2048 bits). Anything else is refused
/// at registration.
public struct COSEKey: Sendable, Equatable {

    public enum Algorithm: Int64, Sendable, CaseIterable {
        case es256 = -7
        case edDSA = -8
        case rs256 = -257
    }

    public let algorithm: Algorithm
    /// The COSE bytes as registered, stored and read back.
    public let encoded: [UInt8]
    /// The parsed key's check, made once when the key is read.
    private let verify: @Sendable ([UInt8], [UInt8]) -> Bool

    /// Reads and checks a COSE key (the key itself is parsed, so a bad point or modulus is refused here, not at the
    /// first sign-in).
    public init(encoded: [UInt8]) throws {
        let map = try CBORReader.decode(encoded)
        guard case .map = map else { throw WebAuthnRefusal.badKey("not a COSE map") }
        guard let alg = map[3]?.int else { throw WebAuthnRefusal.badKey("no alg") }
        guard let algorithm = Algorithm(rawValue: alg) else { throw WebAuthnRefusal.unsupportedAlgorithm(alg) }
        self.algorithm = algorithm
        self.encoded = encoded
        verify = try Self.verifier(map, algorithm)
    }

    /// Two keys are the same key when their COSE bytes are.
    public static func == (a: COSEKey, b: COSEKey) -> Bool { a.encoded == b.encoded }

    /// Whether `signature` is this key's over `message`.
    public func verifies(_ signature: [UInt8], over message: [UInt8]) -> Bool { verify(signature, message) }

    private static func verifier(_ map: CBOR, _ algorithm: Algorithm) throws -> @Sendable ([UInt8], [UInt8]) -> Bool {
        let kty = map[1]?.int
        switch algorithm {
        case .es256:
            guard kty == 2, map[-1]?.int == 1, let x = map[-2]?.byteString, let y = map[-3]?.byteString, x.count == 32, y.count == 32 else {
                throw WebAuthnRefusal.badKey("ES256 needs an EC2 P-256 key with 32-byte x and y")
            }
            let key: P256.Signing.PublicKey
            do { key = try P256.Signing.PublicKey(x963Representation: [0x04] + x + y) } catch { throw WebAuthnRefusal.badKey("not a point on P-256") }
            return { signature, message in
                guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
                return key.isValidSignature(parsed, for: SHA256.hash(data: message))
            }
        case .edDSA:
            guard kty == 1, map[-1]?.int == 6, let x = map[-2]?.byteString, x.count == 32 else {
                throw WebAuthnRefusal.badKey("EdDSA needs an OKP Ed25519 key with a 32-byte x")
            }
            let key: Curve25519.Signing.PublicKey
            do { key = try Curve25519.Signing.PublicKey(rawRepresentation: x) } catch { throw WebAuthnRefusal.badKey("not an Ed25519 key") }
            return { signature, message in key.isValidSignature(signature, for: message) }
        case .rs256:
            guard kty == 3, let n = map[-1]?.byteString, let e = map[-2]?.byteString else {
                throw WebAuthnRefusal.badKey("RS256 needs an RSA key with n and e")
            }
            let key: _RSA.Signing.PublicKey
            do { key = try _RSA.Signing.PublicKey(n: n, e: e) } catch { throw WebAuthnRefusal.badKey("not an RSA key of at least 2048 bits") }
            return { signature, message in
                key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: message),
                                     padding: .insecurePKCS1v1_5)
            }
        }
    }
}
