import Hummingbird
import LatchkeyCore

/// signup/v1.0/start | challenge | continue
extension NativeAuthRoutes {
    func signUpStart(_ form: FormBody, _ caller: CallerInfo) async throws -> Response {
        let result = try await engine.signUpStart(username: form["username"], password: form["password"],
                                                  attributes: form["attributes"], challengeTypes: form["challenge_type"],
                                                  caller: caller)
        switch result {
        case .started(let token): return Self.started(token)
        case .redirect: return Self.redirect("Sign-up needs email verification by code (challenge type oob).")
        }
    }

    func signUpChallenge(_ form: FormBody, _ caller: CallerInfo) async throws -> Response {
        Self.challenge(try await engine.signUpChallenge(continuationToken: form["continuation_token"],
                                                        challengeTypes: form["challenge_type"], caller: caller))
    }

    func signUpContinue(_ form: FormBody, _ caller: CallerInfo) async throws -> Response {
        let token = form["continuation_token"]
        let result: SignUpContinueResult
        switch form["grant_type"] {
        case "oob": result = try await engine.signUpContinueWithCode(continuationToken: token, code: form["oob"], caller: caller)
        case "password":
            result = try await engine.signUpContinueWithPassword(continuationToken: token, password: form["password"], caller: caller)
        case "attributes":
            result = try await engine.signUpContinueWithAttributes(continuationToken: token, attributes: form["attributes"], caller: caller)
        case nil, "": throw LatchkeyError.missingParameter("grant_type")
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
