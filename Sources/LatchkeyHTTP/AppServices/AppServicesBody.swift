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
    /// `api-key` logins.
    var key: String?

    enum CodingKeys: String, CodingKey {
        case email, password, username, token, tokenId, arguments, key
        case idToken = "id_token"
    }
}
