import Foundation
import Hummingbird
import LatchkeyCore

/// oauth2/v2.0/initiate | challenge | token
extension NativeAuthRoutes {
    func signInInitiate(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        switch try await engine.signInInitiate(username: form.username, challengeTypes: form.challengeTypes, caller: caller) {
        case .started(let token): return Self.started(token)
        case .redirect: return Self.redirect("The client supports no challenge this account can answer.")
        }
    }

    func signInChallenge(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        Self.challenge(try await engine.signInChallenge(continuationToken: form.continuationToken,
                                                        challengeTypes: form.challengeTypes, caller: caller))
    }

    func token(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        let ct = form.continuationToken, scope = form.scope
        let tokens: TokenSet
        switch form.grantType {
        case "password":
            tokens = try await engine.signInWithPassword(continuationToken: ct, username: form.username,
                                                         password: form.password, scope: scope, caller: caller)
        case "oob":
            tokens = try await engine.signInWithCode(continuationToken: ct, code: form.oob, scope: scope, caller: caller)
        case "continuation_token":
            tokens = try await engine.signInWithContinuationToken(continuationToken: ct, username: form.username,
                                                                  scope: scope, caller: caller)
        case "refresh_token":
            tokens = try await engine.refresh(refreshToken: form.refreshToken, scope: scope, caller: caller)
        case nil, "":
            throw MalformedRequest(what: "grant_type")
        default:  // the client was checked before the endpoint ran
            return NativeAuthError.body("unsupported_grant_type", "The grant_type is not supported.", [70003])
        }
        return Self.tokenResponse(tokens)
    }

    /// The token body MSAL requires: Bearer type, expiries as integers, and `client_info` (uid.utid).
    static func tokenResponse(_ tokens: TokenSet) -> Response {
        let clientInfo = "{\"uid\":\"\(tokens.userId)\",\"utid\":\"\(tokens.tenantId)\"}"
        var body: [String: JSONValue] = [
            "token_type": "Bearer", "scope": .string(tokens.scope), "expires_in": .int(tokens.expiresIn),
            "ext_expires_in": .int(tokens.expiresIn), "access_token": .string(tokens.accessToken),
            "client_info": .string(Base64URL.encode(Array(clientInfo.utf8))),
        ]
        if let id = tokens.idToken { body["id_token"] = .string(id) }
        if let refresh = tokens.refreshToken { body["refresh_token"] = .string(refresh) }
        return JSONResponse.ok(body)
    }
}
