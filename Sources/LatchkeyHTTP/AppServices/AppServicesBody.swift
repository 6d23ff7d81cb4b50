import LatchkeyCore

/// Every field the email/password provider's calls send; each endpoint reads the ones it needs.
/// A field of the wrong JSON type makes the whole body a BadRequest.
struct AppServicesBody: JSONObjectBody, Sendable {
    var email: String?
    var password: String?
    var username: String?
    var token: String?
    var tokenId: String?
    /// `reset/call`: the extra arguments spread after the reset payload.
    var arguments: [JSONValue]?
    /// `oauth2-apple` and `oauth2-google` logins.
    var idToken: String?
    /// `oauth2-google` with a server auth code.
    var authCode: String?
    /// `api-key` logins.
    var key: String?

    enum CodingKeys: String, CodingKey {
        case email, password, username, token, tokenId, arguments, key, authCode
        case idToken = "id_token"
    }
}
