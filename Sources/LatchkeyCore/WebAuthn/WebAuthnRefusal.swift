import Foundation

/// Why a WebAuthn registration or assertion is refused: each check of the relying party, named.
public enum WebAuthnRefusal: Error, Sendable, Equatable {
    case malformedCBOR(String)
    case malformed(String)
    case wrongType(expected: String)
    case challengeMismatch
    case originNotAllowed(String)
    case crossOrigin
    case rpIdMismatch
    case userNotPresent
    case userNotVerified
    case unsupportedAlgorithm(Int64)
    case badKey(String)
    case badSignature
    case counterWentBack(stored: UInt32, presented: UInt32)

    /// What the person's page or the client's error says (never secret material).
    public var reason: String {
        switch self {
        case .malformedCBOR(let what): "malformed CBOR: \(what)"
        case .malformed(let what): "malformed: \(what)"
        case .wrongType(let expected): "clientDataJSON.type is not \(expected)"
        case .challengeMismatch: "the challenge is not the one this visit was given"
        case .originNotAllowed(let origin): "origin \(origin.prefix(100)) is not one of this relying party's"
        case .crossOrigin: "a cross-origin request"
        case .rpIdMismatch: "the authenticator signed for another relying party (rpIdHash)"
        case .userNotPresent: "user presence (UP) missing"
        case .userNotVerified: "user verification (UV) missing"
        case .unsupportedAlgorithm(let alg): "COSE algorithm \(alg) is not accepted (ES256, EdDSA and RS256 are)"
        case .badKey(let what): "public key: \(what)"
        case .badSignature: "the signature does not verify"
        case .counterWentBack(let stored, let presented): "signature counter \(presented) is not above \(stored): a cloned authenticator?"
        }
    }
}
