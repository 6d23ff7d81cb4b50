import Foundation
import Testing
@testable import LatchkeyCore

/// The relying party's checks, each with the bad value sent: a software authenticator (swift-crypto keys, CBOR written
/// as authenticators write it) makes registrations and assertions; the black-box suite checks the same against
/// soft-webauthn and Duo's `webauthn`.
@Suite struct RelyingPartyTests {
    static let rp = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])
    let challenge = Array((0..<32).map { UInt8(255 - $0) })

    func register(_ authenticator: TestAuthenticator, challenge: [UInt8]? = nil, clientData: [UInt8]? = nil) throws -> RelyingParty.Registered {
        try Self.rp.verifyRegistration(clientDataJSON: clientData ?? authenticator.clientData("webauthn.create", challenge: self.challenge),
                                       attestationObject: authenticator.attestationObject(), challenge: challenge ?? self.challenge)
    }

    @Test(arguments: ["es256", "eddsa", "rs256"])
    func eachAcceptedAlgorithmRegistersAndSignsIn(_ name: String) throws {
        var authenticator = switch name { case "es256": TestAuthenticator.es256(); case "eddsa": TestAuthenticator.edDSA(); default: try TestAuthenticator.rs256() }
        let registered = try register(authenticator)
        #expect(registered.credentialId == authenticator.credentialId && registered.signCount == 0 && !registered.backupEligible)
        let assertion = try authenticator.assert(challenge: challenge)
        let asserted = try Self.rp.verifyAssertion(clientDataJSON: assertion.clientData, authenticatorData: assertion.authenticatorData,
                                                   signature: assertion.signature, challenge: challenge, publicKey: registered.publicKey,
                                                   storedSignCount: registered.signCount)
        #expect(asserted.signCount == 1)
        // The same assertion with one bit of the signature flipped.
        var forged = assertion.signature
        forged[forged.count / 2] ^= 0x01
        #expect(throws: WebAuthnRefusal.badSignature) {
            try Self.rp.verifyAssertion(clientDataJSON: assertion.clientData, authenticatorData: assertion.authenticatorData, signature: forged,
                                        challenge: challenge, publicKey: registered.publicKey, storedSignCount: 0)
        }
    }

    @Test func registrationRefusalsNameTheCheck() throws {
        let good = TestAuthenticator.es256()
        #expect(throws: WebAuthnRefusal.challengeMismatch) { try register(good, challenge: [1, 2, 3]) }
        #expect(throws: WebAuthnRefusal.originNotAllowed("https://evil.example")) {
            try register(good, clientData: good.clientData("webauthn.create", challenge: challenge, origin: "https://evil.example"))
        }
        #expect(throws: WebAuthnRefusal.originNotAllowed("https://example.com.evil.example")) {
            try register(good, clientData: good.clientData("webauthn.create", challenge: challenge, origin: "https://example.com.evil.example"))
        }
        #expect(throws: WebAuthnRefusal.wrongType(expected: "webauthn.create")) {
            try register(good, clientData: good.clientData("webauthn.get", challenge: challenge))
        }
        #expect(throws: WebAuthnRefusal.crossOrigin) {
            try register(good, clientData: good.clientData("webauthn.create", challenge: challenge, crossOrigin: true))
        }
        var otherRP = good
        otherRP.rpId = "evil.example"
        #expect(throws: WebAuthnRefusal.rpIdMismatch) { try register(otherRP) }
        var noUV = good
        noUV.flags = [.userPresent]
        #expect(throws: WebAuthnRefusal.userNotVerified) { try register(noUV) }
        var noUP = good
        noUP.flags = [.userVerified]
        #expect(throws: WebAuthnRefusal.userNotPresent) { try register(noUP) }
    }

    @Test func anAlgorithmOutsideTheThreeIsRefusedAtRegistration() throws {
        // ES384 (-35) on P-384: a fine key, but not one this relying party accepts.
        let cose = CBORWriter.write(CBORWriter.map([(.unsigned(1), .unsigned(2)), (.unsigned(3), CBORWriter.int(-35)), (CBORWriter.int(-1), .unsigned(2)),
                                                    (CBORWriter.int(-2), .bytes([UInt8](repeating: 1, count: 48))),
                                                    (CBORWriter.int(-3), .bytes([UInt8](repeating: 2, count: 48)))]))
        #expect(throws: WebAuthnRefusal.unsupportedAlgorithm(-35)) { try COSEKey(encoded: cose) }
        #expect(throws: WebAuthnRefusal.badKey("not a point on P-256")) {
            try COSEKey(encoded: CBORWriter.write(CBORWriter.map([(.unsigned(1), .unsigned(2)), (.unsigned(3), CBORWriter.int(-7)),
                                                                  (CBORWriter.int(-1), .unsigned(1)), (CBORWriter.int(-2), .bytes([UInt8](repeating: 1, count: 32))),
                                                                  (CBORWriter.int(-3), .bytes([UInt8](repeating: 2, count: 32)))])))
        }
    }

    @Test func aCounterThatDoesNotGoUpIsAClone() throws {
        var authenticator = TestAuthenticator.es256()
        authenticator.counter = 41
        let registered = try register(authenticator)
        let first = try authenticator.assert(challenge: challenge)
        let asserted = try Self.rp.verifyAssertion(clientDataJSON: first.clientData, authenticatorData: first.authenticatorData, signature: first.signature,
                                                   challenge: challenge, publicKey: registered.publicKey, storedSignCount: 41)
        #expect(asserted.signCount == 42)
        #expect(throws: WebAuthnRefusal.counterWentBack(stored: 42, presented: 42)) {
            try Self.rp.verifyAssertion(clientDataJSON: first.clientData, authenticatorData: first.authenticatorData, signature: first.signature,
                                        challenge: challenge, publicKey: registered.publicKey, storedSignCount: 42)
        }
        // A synced passkey that always says 0 is not checked.
        var synced = TestAuthenticator.es256()
        let syncedKey = try register(synced).publicKey
        synced.counter = UInt32.max  // assert() adds one: wraps to 0
        let zero = try synced.assert(challenge: challenge)
        #expect(try Self.rp.verifyAssertion(clientDataJSON: zero.clientData, authenticatorData: zero.authenticatorData, signature: zero.signature,
                                            challenge: challenge, publicKey: syncedKey, storedSignCount: 0).signCount == 0)
    }

    @Test func malformedCBORIsRefusedWithItsReason() {
        let cases: [([UInt8], String)] = [
            ([0x9f, 0x01, 0xff], "indefinite lengths are not accepted"),
            ([0xc1, 0x01], "tags are not accepted"),
            ([0x5a, 0xff, 0xff, 0xff, 0xff], "a length runs past the end"),
            ([0xa2, 0x01, 0x02, 0x01, 0x03], "a map repeats a key"),
            (Array(repeating: 0x81, count: 20) + [0x01], "nested deeper than 8"),
            ([0x01, 0x02], "1 bytes after the value"),
            ([0x62, 0xff, 0xfe], "a text string is not UTF-8"),
            ([0x1c], "reserved additional information 28"),
            ([], "ends inside a value"),
        ]
        for (bytes, reason) in cases {
            #expect(throws: WebAuthnRefusal.malformedCBOR(reason), "\(bytes)") { try CBORReader.decode(bytes) }
        }
    }

    /// Every mutation of a good attestation object and assertion is either accepted or refused with a reason: the
    /// verifier never traps (a deterministic generator, so a failure repeats).
    @Test func mutatedInputsAreRefusedNeverCrash() throws {
        var authenticator = TestAuthenticator.es256()
        let attestation = authenticator.attestationObject()
        let client = authenticator.clientData("webauthn.create", challenge: challenge)
        let registered = try register(authenticator)
        let assertion = try authenticator.assert(challenge: challenge)
        var generator = SplitMix(seed: 20_261_128)
        var refused = 0
        for round in 0..<3000 {
            var object = round % 2 == 0 ? attestation : assertion.authenticatorData
            for _ in 0..<(1 + Int(generator.next() % 4)) where !object.isEmpty {
                let at = Int(generator.next() % UInt64(object.count))
                switch generator.next() % 3 {
                case 0: object[at] = UInt8(truncatingIfNeeded: generator.next())
                case 1: object.removeSubrange(at...)
                default: object.insert(UInt8(truncatingIfNeeded: generator.next()), at: at)
                }
            }
            do {
                if round % 2 == 0 {
                    _ = try Self.rp.verifyRegistration(clientDataJSON: client, attestationObject: object, challenge: challenge)
                } else {
                    _ = try Self.rp.verifyAssertion(clientDataJSON: assertion.clientData, authenticatorData: object, signature: assertion.signature,
                                                    challenge: challenge, publicKey: registered.publicKey, storedSignCount: 0)
                }
            } catch is WebAuthnRefusal {
                refused += 1
            }
        }
        #expect(refused > 2900)
    }
}

/// SplitMix64: a small deterministic generator for the mutation test.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
