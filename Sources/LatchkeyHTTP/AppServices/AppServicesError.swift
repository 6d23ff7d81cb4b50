import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The App Services error body `{error, error_code, link}` with `Content-Type: application/json` exactly
/// (realm-core parses errors only then), and the statuses of specs/app-services.md §1.7.
enum AppServicesError {
    static func response(for error: LatchkeyError, appId: String?) -> Response {
        switch error {
        case .userAlreadyExists: return body(.conflict, "AccountNameInUse", "name already in use")
        case .passwordRejected(.tooShort), .passwordRejected(.tooLong): return body(.badRequest, "BadRequest", "password must be between 8 and 256 characters")
        case .passwordRejected(let problem): return body(.badRequest, "BadRequest", "password rejected: \(problem == .recentlyUsed ? "same as the current one" : "too common or too close to the email")")
        case .invalidUsername: return body(.badRequest, "BadRequest", "email invalid")
        case .missingParameter(let name): return body(.badRequest, "MissingParameter", "\(name) is required")
        case .invalidParameter(let what): return body(.badRequest, "BadRequest", what)
        case .linkTokenMalformed: return body(.badRequest, "BadRequest", "invalid token data")
        case .linkTokenInvalid: return body(.badRequest, "UserpassTokenInvalid", "userpass token is expired or invalid")
        case .userAlreadyConfirmed: return body(.badRequest, "UserAlreadyConfirmed", "already confirmed")
        case .userNotFound: return body(.notFound, "UserNotFound", "user not found")
        case .invalidCredentials: return body(.unauthorized, "InvalidPassword", "invalid username/password")
        case .userPendingConfirmation: return body(.unauthorized, "AuthError", "confirmation required")
        case .sessionInvalid, .accessTokenInvalid, .refreshTokenInvalid: return body(.unauthorized, "InvalidSession", "invalid session")
        case .resetRequiresFunction: return body(.badRequest, "BadRequest", "please use reset password via function")
        case .confirmationFailed(let email): return body(.badRequest, "BadRequest", "failed to confirm user \"\(email)\"")
        case .resetFailed(let email): return body(.badRequest, "FunctionExecutionError", "failed to reset password for user \"\(email)\"")
        case .noConfirmationFunction(true, let email):
            return body(.badRequest, "InvalidConfiguration", "cannot run confirmation for \(email): automatic confirmation is enabled")
        case .noConfirmationFunction(false, let email):
            return body(.badRequest, "InvalidConfiguration", "cannot run confirmation for \(email): no confirmation function is configured")
        case .noResetFunction(let email):
            return body(.badRequest, "InvalidConfiguration", "cannot reset password for \(email): no reset function is configured")
        case .unknownApp: return body(.notFound, "AppNotFound", "cannot find app using Client App ID '\(appId ?? "")'")
        case .rateLimited(let seconds):
            return body(.tooManyRequests, "TooManyRequests", "too many requests, retry in \(seconds) seconds",
                        headers: [.retryAfter: String(seconds)])
        case .serverBusy(let seconds):
            return body(.serviceUnavailable, "InternalServerError", "server busy", headers: [.retryAfter: String(seconds)])
        case .storeFailure: return body(.internalServerError, "InternalServerError", "internal server error")
        case .unknownClient, .unsupportedChallengeType, .invalidScope, .userHasNoPassword, .invalidAttributes, .invalidCode, .flowTokenInvalid,
             .flowTokenExpired, .flowStepMismatch:
            return body(.badRequest, "BadRequest", "bad request")
        }
    }

    static func body(_ status: HTTPResponse.Status, _ code: String, _ message: String, headers: HTTPFields = [:]) -> Response {
        JSONResponse.make(status, ["error": .string(message), "error_code": .string(code)], headers: headers)
    }
}
