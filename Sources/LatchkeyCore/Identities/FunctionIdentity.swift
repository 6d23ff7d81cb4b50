import Foundation

/// The strategy for the operator's login function (App Services `custom-function`): the function gets the login
/// payload and answers the external id, as a string or `{"id", "name"?, "email"?}`; `{"error": "…"}` refuses with
/// the operator's own message. A timeout or a broken answer refuses without saying why (the log says).
extension Identities {
    func functionIdentity(_ name: String?, payload: [String: JSONValue]) async throws -> VerifiedIdentity {
        guard let name, let function = engine.functions[name] else { throw LatchkeyError.providerNotEnabled("custom-function") }
        switch await function.invoke(.object(payload)) {
        case .failed(let reason):
            logger.warning("login function failed", metadata: ["function": "\(name)", "reason": "\(reason)"])
            throw LatchkeyError.identityRefused("the login function did not answer")
        case .answered(let data):
            guard let answer = JSONValue.decodeUntrusted(JSONValue.self, from: data) else {
                throw LatchkeyError.identityRefused("the login function answered something other than JSON")
            }
            switch answer {
            case .string(let id): return try Self.functionIdentity(id: id, name: nil, email: nil)
            case .object(let fields):
                if let message = fields["error"]?.stringValue { throw LatchkeyError.identityRefused(String(message.prefix(200))) }
                return try Self.functionIdentity(id: fields["id"]?.stringValue, name: fields["name"]?.stringValue,
                                                 email: fields["email"]?.stringValue)
            default: throw LatchkeyError.identityRefused("the login function answered no id")
            }
        }
    }

    private static func functionIdentity(id: String?, name: String?, email: String?) throws -> VerifiedIdentity {
        guard let id, !id.isEmpty, id.utf8.count <= 255 else { throw LatchkeyError.identityRefused("the login function answered no id") }
        // The operator's function vouches for the address it returns.
        return VerifiedIdentity(provider: VerifiedIdentity.functionProvider, subject: id, verifiedEmail: email.flatMap(EmailAddress.normalize), name: name)
    }
}
