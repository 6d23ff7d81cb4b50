import Foundation

/// `clientDataJSON` (WebAuthn §5.8.1): what the browser says it was asked to do, for which challenge, from which
/// origin. Read from untrusted bytes within the token limits.
struct ClientData: Decodable {
    let type: String
    let challenge: String
    let origin: String
    let crossOrigin: Bool?

    static func read(_ bytes: [UInt8]) throws -> ClientData {
        guard bytes.count <= 4096, let data = JSONValue.decodeUntrusted(ClientData.self, from: Data(bytes), limits: .token) else {
            throw WebAuthnRefusal.malformed("clientDataJSON")
        }
        return data
    }

    /// The relying party's checks on it: the ceremony, the challenge it was given, an allowed origin (exact), and no
    /// cross-origin embedding.
    func check(type expected: String, challenge expectedChallenge: [UInt8], origins: [String]) throws {
        guard type == expected else { throw WebAuthnRefusal.wrongType(expected: expected) }
        guard let presented = Base64URL.decode(Substring(challenge)),
              Digest.constantTimeEqual(presented, expectedChallenge) else { throw WebAuthnRefusal.challengeMismatch }
        guard origins.contains(origin) else { throw WebAuthnRefusal.originNotAllowed(origin) }
        guard crossOrigin != true else { throw WebAuthnRefusal.crossOrigin }
    }
}
