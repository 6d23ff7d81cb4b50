import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The native-authentication dialect (docs/native-auth.md): form posts in, JSON out, at the root and
/// under one leading tenant segment (the SDK puts its tenant there).
struct NativeAuthRoutes: Sendable {
    let engine: any NativeAuthSurface
    let clientAddress: ClientAddress
    let errors: NativeAuthErrors
    typealias Handler = @Sendable (NativeAuthForm, CallerInfo) async throws -> Response

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        let endpoints: [(String, Handler)] = [
            ("signup/v1.0/start", signUpStart), ("signup/v1.0/challenge", signUpChallenge),
            ("signup/v1.0/continue", signUpContinue),
            ("oauth2/v2.0/initiate", signInInitiate), ("oauth2/v2.0/challenge", signInChallenge),
            ("oauth2/v2.0/introspect", mfaIntrospect),
            ("register/v1.0/introspect", registerIntrospect), ("register/v1.0/challenge", registerChallenge),
            ("register/v1.0/continue", registerContinue),
            ("resetpassword/v1.0/start", resetStart), ("resetpassword/v1.0/challenge", resetChallenge),
            ("resetpassword/v1.0/continue", resetContinue), ("resetpassword/v1.0/submit", resetSubmit),
            ("resetpassword/v1.0/poll_completion", resetPoll),
        ]
        let group = router.group().add(middleware: DialectErrorMiddleware(errors))
        for prefix in ["", "/:tenant"] {
            for (path, handler) in endpoints {
                group.post("\(prefix)/\(path)") { request, context in
                    let form = try await request.decodeForm(as: NativeAuthForm.self, context: context)
                    _ = try engine.requireClient(form.clientId)  // before anything else, as the SDK expects
                    return try await handler(form, clientAddress.caller(request, context: context, clientId: form.clientId))
                }
            }
        }
    }

    // MARK: Shared encodings

    static func challenge(_ result: ChallengeResult) -> Response {
        switch result {
        case .code(let challenge, let token):
            return JSONResponse.ok([
                "continuation_token": .string(token), "challenge_type": "oob", "binding_method": "prompt",
                "challenge_channel": .string(challenge.channel), "challenge_target_label": .string(challenge.targetLabel),
                "code_length": .int(challenge.codeLength), "interval": .int(challenge.resendIntervalSeconds),
            ])
        case .password(let token):
            return JSONResponse.ok(["continuation_token": .string(token), "challenge_type": "password"])
        case .redirect:
            return redirect("The client does not support the challenge this account needs.")
        }
    }

    static func redirect(_ reason: String) -> Response {
        JSONResponse.ok(["challenge_type": "redirect", "redirect_reason": .string(reason)])
    }

    static func started(_ token: String) -> Response {
        JSONResponse.ok(["continuation_token": .string(token)])
    }
}
