import Foundation
import Hummingbird
import LatchkeyCore

/// How a client names (and, when confidential, proves) itself at the token, introspection and revocation
/// endpoints: `client_secret_basic` (RFC 6749 §2.3.1: each part form-encoded, then Base64) or `client_secret_post`;
/// `private_key_jwt` (a signed `client_assertion`, RFC 7523) for a client that publishes keys; a public client sends its
/// `client_id` alone. Using two methods at once is refused.
enum ClientCredentials {
    static func authenticate(_ request: Request, clientId: String?, clientSecret: String?, assertion: String? = nil, assertionType: String? = nil,
                             engine: any ClientAuthenticating) async throws -> ClientApplication {
        let basic = request.headers[.authorization].map { $0.lowercased().hasPrefix("basic ") } ?? false
        if let assertion {
            guard clientSecret == nil, !basic else { throw LatchkeyError.openID(.invalidRequest("Use one client authentication method, not two.")) }
            return try await engine.authenticateClient(assertion: assertion, type: assertionType, clientId: clientId)
        }
        if let header = request.headers[.authorization], basic {
            guard clientSecret == nil else { throw LatchkeyError.openID(.invalidRequest("Use one client authentication method, not two.")) }
            guard header.utf8.count <= 2048, let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                  let pair = String(data: decoded, encoding: .utf8), let colon = pair.firstIndex(of: ":"),
                  let id = formDecoded(pair[..<colon]), let secret = formDecoded(pair[pair.index(after: colon)...]) else {
                throw LatchkeyError.openID(.invalidClient("The Basic credentials cannot be read."))
            }
            if let clientId, !ClientApplication.sameID(clientId, id) {
                throw LatchkeyError.openID(.invalidRequest("client_id differs from the authenticated client."))
            }
            return try engine.authenticateClient(id: id, secret: secret)
        }
        if let clientSecret { return try engine.authenticateClient(id: clientId, secret: clientSecret) }
        // A public client: the native API's own errors for a missing or unknown id, as the SDKs expect.
        let client = try engine.requireClient(clientId)
        guard !client.isConfidential else { throw LatchkeyError.openID(.invalidClient("This client must authenticate with its secret.")) }
        guard client.jwksURI == nil else {
            throw LatchkeyError.openID(.invalidClient("This client must authenticate with a client_assertion (private_key_jwt)."))
        }
        return client
    }

    private static func formDecoded(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
