import Foundation
import LatchkeyCore

/// Every field the native API's form posts carry; each endpoint reads the ones it needs.
struct NativeAuthForm: FormEncodedBody, Sendable {
    var clientId: String?
    var username: String?
    var password: String?
    var newPassword: String?
    var challengeType: String?
    var continuationToken: String?
    var grantType: String?
    var oob: String?
    var scope: String?
    var refreshToken: String?
    var attributes: String?
    /// `capabilities` as the SDKs send it (`capability`, comma-separated, in Microsoft's reference).
    var capabilities: String?
    /// The MFA method chosen from introspect; the contact and channel a method is registered with.
    var methodId: String?
    var challengeTarget: String?
    var challengeChannel: String?
    /// The browser sign-in's `authorization_code` grant (issue R) and `client_secret_post`.
    var code: String?
    var redirectUri: String?
    var codeVerifier: String?
    var clientSecret: String?
    /// `private_key_jwt` (RFC 7523 §2.2).
    var clientAssertion: String?
    var clientAssertionType: String?
    /// The device grant's poll (RFC 8628 §3.4).
    var deviceCode: String?
    /// The protected resource a token is asked for (RFC 8707).
    var resource: String?

    init(form: FormFields) {
        clientId = form["client_id"]; username = form["username"]; password = form["password"]
        newPassword = form["new_password"]; challengeType = form["challenge_type"]
        continuationToken = form["continuation_token"]; grantType = form["grant_type"]; oob = form["oob"]
        scope = form["scope"]; refreshToken = form["refresh_token"]; attributes = form["attributes"]
        capabilities = [form["capabilities"], form["capability"]].compactMap { $0 }.joined(separator: " ")
        methodId = form["id"]; challengeTarget = form["challenge_target"]; challengeChannel = form["challenge_channel"]
        code = form["code"]; redirectUri = form["redirect_uri"]; codeVerifier = form["code_verifier"]; clientSecret = form["client_secret"]
        clientAssertion = form["client_assertion"]; clientAssertionType = form["client_assertion_type"]
        deviceCode = form["device_code"]; resource = form["resource"]
    }

    /// `challenge_type`: space (or comma, or plus) separated; nil when absent or blank.
    var challengeTypes: ChallengeTypes? {
        guard let raw = challengeType, !raw.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        let words = Set(raw.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "+" }).map { $0.lowercased() })
        var types = ChallengeTypes(oob: words.contains("oob"), password: words.contains("password"), redirect: words.contains("redirect"))
        types.capabilities = Set((capabilities ?? "").split(whereSeparator: { $0 == " " || $0 == "," || $0 == "+" }).map { $0.lowercased() })
            .intersection(ChallengeTypes.knownCapabilities)
        return types
    }

    /// `attributes`: a JSON object in a string, as the SDKs send it; nil when absent or empty.
    func parsedAttributes() throws -> [String: JSONValue]? {
        guard let raw = attributes, !raw.isEmpty else { return nil }
        guard raw.utf8.count <= 16_384, let object = JSONValue.decodeUntrusted([String: JSONValue].self, from: Data(raw.utf8)) else {
            throw MalformedRequest(what: "attributes")
        }
        return object
    }
}
