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

    /// With `id` (a method from introspect): the second factor's code; without: the first factor's challenge.
    func signInChallenge(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        if let id = form.methodId, !id.isEmpty {
            return Self.challenge(try await engine.mfaChallenge(continuationToken: form.continuationToken, methodId: id,
                                                                challengeTypes: form.challengeTypes, caller: caller))
        }
        return Self.challenge(try await engine.signInChallenge(continuationToken: form.continuationToken,
                                                               challengeTypes: form.challengeTypes, caller: caller))
    }

    /// The grants MSAL's native journey sends (`TokenEndpointRoutes` hands them over; the OAuth grants are its own).
    func token(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        let ct = form.continuationToken, scope = form.scope
        let outcome: SignInOutcome
        switch form.grantType {
        case "password":
            outcome = try await engine.signInWithPassword(continuationToken: ct, username: form.username,
                                                          password: form.password, scope: scope, caller: caller)
        case "oob", "mfa_oob":
            outcome = try await engine.signInWithCode(continuationToken: ct, code: form.oob, scope: scope,
                                                      secondFactorOnly: form.grantType == "mfa_oob", caller: caller)
        case "continuation_token":
            outcome = try await engine.signInWithContinuationToken(continuationToken: ct, username: form.username,
                                                                   scope: scope, caller: caller)
        case nil, "":
            throw MalformedRequest(what: "grant_type")
        default:  // the client was checked before the endpoint ran
            return NativeAuthError.body("unsupported_grant_type", "The grant_type is not supported.", [70003])
        }
        switch outcome {
        case .tokens(let tokens): return Self.tokenResponse(tokens)
        case .mfaRequired(let next):
            return NativeAuthError.body("invalid_grant", "Multi-factor authentication required.", [50076],
                                        extra: ["suberror": "mfa_required", "continuation_token": .string(next)])
        case .registrationRequired(let next):
            return NativeAuthError.body("invalid_grant", "A strong authentication method must be registered.", [50079],
                                        extra: ["suberror": "registration_required", "continuation_token": .string(next)])
        case .redirect(let reason): return Self.redirect(reason)
        case .signedIn: throw LatchkeyError.flowTokenInvalid  // a hosted-page flow's token, presented to the native API
        }
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
