import Crypto
import CryptoExtras
import Foundation
@testable import LatchkeyCore

/// CBOR written the way authenticators write it (canonical, definite lengths), for the tests' own authenticator.
enum CBORWriter {
    static func write(_ value: CBOR) -> [UInt8] {
        switch value {
        case .unsigned(let n): head(0, n)
        case .negative(let n): head(1, n)
        case .bytes(let b): head(2, UInt64(b.count)) + b
        case .text(let t): head(3, UInt64(t.utf8.count)) + Array(t.utf8)
        case .array(let a): head(4, UInt64(a.count)) + a.flatMap(write)
        case .map(let m): head(5, UInt64(m.count)) + m.flatMap { write($0.key) + write($0.value) }
        case .bool(let b): [b ? 0xf5 : 0xf4]
        case .null: [0xf6]
        case .undefined: [0xf7]
        case .simple(let s): s < 24 ? [0xe0 | s] : [0xf8, s]
        case .float(let d): [0xfb] + withUnsafeBytes(of: d.bitPattern.bigEndian, Array.init)
        }
    }

    static func head(_ major: UInt8, _ n: UInt64) -> [UInt8] {
        let m = major << 5
        switch n {
        case 0..<24: return [m | UInt8(n)]
        case 24..<256: return [m | 24, UInt8(n)]
        case 256..<65_536: return [m | 25] + withUnsafeBytes(of: UInt16(n).bigEndian, Array.init)
        case 65_536..<4_294_967_296: return [m | 26] + withUnsafeBytes(of: UInt32(n).bigEndian, Array.init)
        default: return [m | 27] + withUnsafeBytes(of: n.bigEndian, Array.init)
        }
    }

    static func int(_ i: Int64) -> CBOR { i >= 0 ? .unsigned(UInt64(i)) : .negative(UInt64(-1 - i)) }
    static func map(_ entries: [(CBOR, CBOR)]) -> CBOR { .map(entries.map { CBOREntry(key: $0.0, value: $0.1) }) }
}

/// A software authenticator for the verifier's tests: one key of one algorithm, a counter, and flags to set.
struct TestAuthenticator {
    enum Key {
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    var key: Key
    var credentialId = Array((0..<32).map { UInt8($0) })
    var counter: UInt32 = 0
    var rpId = "example.com"
    var origin = "https://example.com"
    var flags: AuthenticatorData.Flags = [.userPresent, .userVerified]

    static func es256() -> TestAuthenticator { TestAuthenticator(key: .p256(P256.Signing.PrivateKey())) }
    static func edDSA() -> TestAuthenticator { TestAuthenticator(key: .ed25519(Curve25519.Signing.PrivateKey())) }
    static func rs256() throws -> TestAuthenticator { TestAuthenticator(key: .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048))) }

    var coseKey: [UInt8] {
        switch key {
        case .p256(let k):
            let raw = Array(k.publicKey.x963Representation)
            return CBORWriter.write(CBORWriter.map([(.unsigned(1), .unsigned(2)), (.unsigned(3), CBORWriter.int(-7)), (CBORWriter.int(-1), .unsigned(1)),
                                                    (CBORWriter.int(-2), .bytes(Array(raw[1..<33]))), (CBORWriter.int(-3), .bytes(Array(raw[33..<65])))]))
        case .ed25519(let k):
            return CBORWriter.write(CBORWriter.map([(.unsigned(1), .unsigned(1)), (.unsigned(3), CBORWriter.int(-8)), (CBORWriter.int(-1), .unsigned(6)),
                                                    (CBORWriter.int(-2), .bytes(Array(k.publicKey.rawRepresentation)))]))
        case .rsa(let k):
            let der = Array(k.publicKey.pkcs1DERRepresentation)
            let (n, e) = Self.rsaNumbers(der)
            return CBORWriter.write(CBORWriter.map([(.unsigned(1), .unsigned(3)), (.unsigned(3), CBORWriter.int(-257)),
                                                    (CBORWriter.int(-1), .bytes(n)), (CBORWriter.int(-2), .bytes(e))]))
        }
    }

    func clientData(_ type: String, challenge: [UInt8], origin: String? = nil, crossOrigin: Bool = false) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin ?? self.origin)","crossOrigin":\#(crossOrigin)}"#.utf8)
    }

    func authenticatorData(attested: Bool) -> [UInt8] {
        var flags = self.flags
        if attested { flags.insert(.attestedCredential) }
        var data = Digest.sha256(Array(rpId.utf8)) + [flags.rawValue] + withUnsafeBytes(of: counter.bigEndian, Array.init)
        if attested {
            data += [UInt8](repeating: 0xaa, count: 16) + [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xff)] + credentialId + coseKey
        }
        return data
    }

    func attestationObject(fmt: String = "none") -> [UInt8] {
        CBORWriter.write(CBORWriter.map([(.text("fmt"), .text(fmt)), (.text("attStmt"), .map([])), (.text("authData"), .bytes(authenticatorData(attested: true)))]))
    }

    func sign(_ message: [UInt8]) throws -> [UInt8] {
        switch key {
        case .p256(let k): Array(try k.signature(for: message).derRepresentation)
        case .ed25519(let k): Array(try k.signature(for: message))
        case .rsa(let k): Array(try k.signature(for: message, padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    /// An assertion: authenticator data, its signature over it and the client data's hash.
    mutating func assert(challenge: [UInt8], clientData: [UInt8]? = nil) throws -> (clientData: [UInt8], authenticatorData: [UInt8], signature: [UInt8]) {
        counter &+= 1
        let client = clientData ?? self.clientData("webauthn.get", challenge: challenge)
        let data = authenticatorData(attested: false)
        return (client, data, try sign(data + Digest.sha256(client)))
    }

    /// n and e from a PKCS#1 RSAPublicKey (SEQUENCE { INTEGER n, INTEGER e }).
    static func rsaNumbers(_ der: [UInt8]) -> ([UInt8], [UInt8]) {
        var i = 0
        func length() -> Int {
            let first = Int(der[i]); i += 1
            guard first & 0x80 != 0 else { return first }
            var n = 0
            for _ in 0..<(first & 0x7f) { n = n << 8 | Int(der[i]); i += 1 }
            return n
        }
        i += 1; _ = length()
        i += 1; let nLength = length(); var n = Array(der[i..<i + nLength]); i += nLength
        i += 1; let eLength = length(); let e = Array(der[i..<i + eLength])
        while n.first == 0 { n.removeFirst() }
        return (n, e)
    }
}
