import Hummingbird
import LatchkeyCore

/// `requestPasswordReset` and `verificationEmailRequest`: mail a link (the pages behind the links are `ParseLinkPages`).
extension ParseRoutes {
    func addEmailRoutes(_ group: RouterGroup<LatchkeyRequestContext>) {
        route(group, "requestPasswordReset", [.post: Endpoint(.checked) { request in
            try await engine.parseRequestPasswordReset(app: request.call.app, email: try Self.email(request), caller: request.call.caller)
            return JSONResponse.make(.ok, [:])
        }])
        route(group, "verificationEmailRequest", [.post: Endpoint(.checked) { request in
            let email = try Self.email(request)
            do {
                try await engine.parseResendVerification(app: request.call.app, email: email, caller: request.call.caller)
            } catch LatchkeyError.userNotFound {
                throw ParseError(205, "No user found with email \(email).")
            } catch LatchkeyError.userAlreadyConfirmed {
                throw ParseError(-1, "Email \(email) is already verified.")
            }
            return JSONResponse.make(.ok, [:])
        }])
    }

    /// Parse's checks on `email`: missing is 204, not a string 125.
    private static func email(_ request: ParseRequest) throws -> String {
        switch request.call.body["email"] {
        case nil, .null?: throw ParseError(204, "you must provide an email")
        case .string(let email)? where !email.isEmpty: return email
        case .string?: throw ParseError(204, "you must provide an email")
        default: throw ParseError(125, "you must provide a valid email string")
        }
    }
}
