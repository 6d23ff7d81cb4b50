import Foundation
import Hummingbird
import LatchkeyCore

/// `authData` on `POST users`: sign up or log in through an identity.
extension ParseRoutes {
    /// `authData.mfa` is the second factor, not an identity.
    static let secondFactorKey = "mfa"

    /// The body's `authData.mfa` (a login's second factor), when there is one.
    static func secondFactorEntry(_ body: [String: JSONValue]) throws -> [String: String]? {
        guard let authData = body["authData"] else { return nil }
        try requireStringSecondFactor(authData)
        return try authDataEntries(authData)[secondFactorKey] ?? nil
    }

    /// Parse Server's adapter refuses a token that is not a string as an invalid token (not an unsupported method).
    static func requireStringSecondFactor(_ authData: JSONValue) throws {
        if case .object(let providers) = authData, case .object(let fields)? = providers[secondFactorKey],
           fields.values.contains(where: { $0.stringValue == nil && $0 != .null }) {
            throw ParseError(141, "Invalid MFA token: the values of authData.mfa must be strings")
        }
    }

    /// Each provider's entry: `null`, or an object whose values are strings (what ParseSwift sends and reads).
    static func authDataEntries(_ value: JSONValue) throws -> [String: [String: String]?] {
        guard case .object(let providers) = value, !providers.isEmpty else {
            throw ParseError(252, "This authentication method is unsupported.")
        }
        return try providers.mapValues { entry -> [String: String]? in
            switch entry {
            case .null: return nil
            case .object(let fields):
                return try fields.compactMapValues { field -> String? in
                    switch field {
                    case .string(let text): return text
                    case .null: return nil
                    default: throw ParseError(252, "This authentication method is unsupported.")
                    }
                }
            default: throw ParseError(252, "This authentication method is unsupported.")
            }
        }
    }

    /// 201 with the new user's objectId, username and session; 200 with the whole user when the identity already had
    /// an account (Parse Server's answers, which ParseSwift decodes).
    func authDataLogin(_ authData: JSONValue, _ request: ParseRequest) async throws -> Response {
        let call = request.call
        var entries = try Self.authDataEntries(authData).compactMapValues { $0 }
        let secondFactor = entries.removeValue(forKey: Self.secondFactorKey)
        guard !entries.isEmpty else { throw ParseError(252, "This authentication method is unsupported.") }
        let (login, created) = try await engine.parseAuthDataLogin(app: call.app, authData: entries, username: try call.string("username"),
                                                                   password: try call.string("password"), secondFactor: secondFactor,
                                                                   installationId: call.installationId, caller: call.caller)
        guard created else {
            return JSONResponse.make(.ok, ParseObjects.user(login.user, showEmail: true, sessionToken: login.sessionToken,
                                                            authData: try await engine.parseAuthData(of: login.user)))
        }
        var answer: [String: JSONValue] = ["objectId": .string(login.user.objectId), "createdAt": .string(ParseObjects.date(login.user.createdAt)),
                                           "username": .string(login.user.username ?? login.user.objectId)]
        if let token = login.sessionToken { answer["sessionToken"] = .string(token) }
        return JSONResponse.make(.created, answer, headers: [.location: "\(engine.settings.publicURL)\(mount)/users/\(login.user.objectId)"])
    }
}
