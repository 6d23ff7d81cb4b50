import Hummingbird
import LatchkeyCore

/// signup/v1.0/start | challenge | continue
extension NativeAuthRoutes {
    func signUpStart(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        let result = try await engine.signUpStart(username: form.username, password: form.password,
                                                  attributes: try form.parsedAttributes(), challengeTypes: form.challengeTypes,
                                                  caller: caller)
        switch result {
        case .started(let token): return Self.started(token)
        case .redirect: return Self.redirect("Sign-up needs email verification by code (challenge type oob).")
        }
    }

    func signUpChallenge(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        Self.challenge(try await engine.signUpChallenge(continuationToken: form.continuationToken,
                                                        challengeTypes: form.challengeTypes, caller: caller))
    }

    func signUpContinue(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        let token = form.continuationToken
        let result: SignUpContinueResult
        switch form.grantType {
        case "oob": result = try await engine.signUpContinueWithCode(continuationToken: token, code: form.oob, caller: caller)
        case "password":
            result = try await engine.signUpContinueWithPassword(continuationToken: token, password: form.password, caller: caller)
        case "attributes":
            result = try await engine.signUpContinueWithAttributes(continuationToken: token, attributes: try form.parsedAttributes(), caller: caller)
        case nil, "": throw MalformedRequest(what: "grant_type")
        default:
            return NativeAuthError.body("unsupported_grant_type", "grant_type must be oob, password or attributes.", [70003])
        }
        switch result {
        case .completed(let next, let expiresIn):
            return JSONResponse.ok(["continuation_token": .string(next), "expires_in": .int(expiresIn)])
        case .credentialRequired(let next):
            return NativeAuthError.credentialRequired(next)
        case .attributesRequired(let next, let required):
            return NativeAuthError.attributesRequired(next, required)
        }
    }
}
