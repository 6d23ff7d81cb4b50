import Foundation
import Hummingbird
import LatchkeyCore

/// oauth2/v2.0/introspect and register/v1.0/introspect | challenge | continue: the second factor and its
/// just-in-time enrolment (the `challenge` with `id` and the `mfa_oob` grant live with sign-in).
extension NativeAuthRoutes {
    func mfaIntrospect(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        let (methods, token) = try await engine.mfaIntrospect(continuationToken: form.continuationToken, caller: caller)
        return Self.methods(methods, token)
    }

    func registerIntrospect(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        let (methods, token) = try await engine.registrationIntrospect(continuationToken: form.continuationToken, caller: caller)
        return Self.methods(methods, token)
    }

    func registerChallenge(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        switch try await engine.registrationChallenge(continuationToken: form.continuationToken, challengeType: form.challengeType,
                                                      target: form.challengeTarget, channel: form.challengeChannel, caller: caller) {
        case .code(let challenge, let target, let token):
            // `challenge_target` (not `_label`) on this endpoint, and unmasked: it is what the user just typed.
            return JSONResponse.ok([
                "continuation_token": .string(token), "challenge_type": "oob", "binding_method": "prompt",
                "challenge_target": .string(target), "challenge_channel": .string(challenge.channel),
                "code_length": .int(challenge.codeLength), "interval": .int(challenge.resendIntervalSeconds),
            ])
        case .preverified(let token):
            return JSONResponse.ok(["continuation_token": .string(token), "challenge_type": "preverified"])
        case .redirect:
            return Self.redirect("The client does not support the challenge this method needs.")
        }
    }

    func registerContinue(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        let token = try await engine.registrationContinue(continuationToken: form.continuationToken, grantType: form.grantType,
                                                          code: form.oob, caller: caller)
        return Self.started(token)
    }

    /// `methods` as MSAL reads them: every one `oob`, with its channel and masked target.
    static func methods(_ methods: [AuthMethod], _ token: String) -> Response {
        JSONResponse.ok([
            "continuation_token": .string(token),
            "methods": .array(methods.map { method in
                var item: [String: JSONValue] = ["id": .string(method.id), "challenge_type": "oob", "challenge_channel": .string(method.channel)]
                if let hint = method.loginHint { item["login_hint"] = .string(hint) }
                return .object(item)
            }),
        ])
    }
}
