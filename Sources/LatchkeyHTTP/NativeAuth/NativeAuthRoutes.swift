import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The native-authentication dialect (specs/native-auth.md): form posts in, JSON out, at the root and
/// under one leading tenant segment (the SDK puts its tenant there).
struct NativeAuthRoutes: Sendable {
    let engine: LatchkeyEngine
    let clientAddress: ClientAddress
    typealias Handler = @Sendable (FormBody, CallerInfo) async throws -> Response

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        let endpoints: [(String, Handler)] = [
            ("signup/v1.0/start", signUpStart), ("signup/v1.0/challenge", signUpChallenge),
            ("signup/v1.0/continue", signUpContinue),
            ("oauth2/v2.0/initiate", signInInitiate), ("oauth2/v2.0/challenge", signInChallenge),
            ("oauth2/v2.0/token", token),
            ("resetpassword/v1.0/start", resetStart), ("resetpassword/v1.0/challenge", resetChallenge),
            ("resetpassword/v1.0/continue", resetContinue), ("resetpassword/v1.0/submit", resetSubmit),
            ("resetpassword/v1.0/poll_completion", resetPoll),
        ]
        for prefix in ["", "/:tenant"] {
            for (path, handler) in endpoints {
                router.post("\(prefix)/\(path)") { request, context in
                    try await self.handle(request, context: context, handler)
                }
            }
        }
    }

    /// Reads the form, builds the caller, runs the endpoint, and maps engine errors to the dialect's errors.
    private func handle(_ request: Request, context: LatchkeyRequestContext, _ handler: Handler) async throws -> Response {
        do {
            let form = try await FormBody.read(request, context: context)
            _ = try engine.requireClient(form["client_id"])  // before anything else, as the SDK expects
            let caller = clientAddress.caller(request, context: context, clientId: form["client_id"])
            return try await handler(form, caller)
        } catch let error as LatchkeyError {
            return NativeAuthError.response(for: error)
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
