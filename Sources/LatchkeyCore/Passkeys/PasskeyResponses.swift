import Foundation

/// `RegistrationResponseJSON` (WebAuthn Level 3, what `PublicKeyCredential.toJSON()` gives after `create()`): the
/// fields the relying party reads, base64url as the browser writes them.
public struct RegistrationResponse: Decodable, Sendable {
    public struct Body: Decodable, Sendable {
        let clientDataJSON: String
        let attestationObject: String
    }
    let id: String
    let type: String
    let response: Body

    /// Reads a client's JSON within bounds; nil for anything that is not one.
    public static func read(_ data: Data) -> RegistrationResponse? {
        JSONValue.decodeUntrusted(RegistrationResponse.self, from: data, limits: PasskeyResponseLimits.json)
    }
}

/// `AuthenticationResponseJSON` (after `get()`): the assertion and the user handle of a discoverable credential.
public struct AuthenticationResponse: Decodable, Sendable {
    public struct Body: Decodable, Sendable {
        let clientDataJSON: String
        let authenticatorData: String
        let signature: String
        let userHandle: String?
    }
    let id: String
    let type: String
    let response: Body

    public static func read(_ data: Data) -> AuthenticationResponse? {
        JSONValue.decodeUntrusted(AuthenticationResponse.self, from: data, limits: PasskeyResponseLimits.json)
    }
}

enum PasskeyResponseLimits {
    /// The response, its `response` object, and lists such as `transports` inside it.
    static let json = JSONShape.Limits(maxDepth: 4, maxElements: 64)

    /// A base64url field, decoded, or the refusal naming it.
    static func bytes(_ text: String, _ name: String, max: Int = 16 * 1024) throws -> [UInt8] {
        guard text.utf8.count <= max * 4 / 3 + 4, let bytes = Base64URL.decode(Substring(text)), !bytes.isEmpty else {
            throw LatchkeyError.passkeyRefused("\(name) is not base64url")
        }
        return bytes
    }
}
