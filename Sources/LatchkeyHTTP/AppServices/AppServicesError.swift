import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The App Services error body `{error, error_code, link}` with `Content-Type: application/json` exactly
/// (realm-core parses errors only then), and the statuses of docs/app-services.md: each error's class's status
/// (`ErrorClass`), apart from the answers the hosted service gave that realm-core's tests hold it to.
struct AppServicesError: Sendable {
    /// The configured password bounds, which the length message names.
    let passwords: PasswordPolicy

    func response(for error: LatchkeyError, appId: String?) -> Response {
        switch error {
        case .emailTaken, .usernameTaken: return Self.body(.conflict, "AccountNameInUse", "name already in use")
        case .passwordRejected(.tooShort), .passwordRejected(.tooLong):
            return Self.body(.badRequest, "BadRequest", "password must be between \(passwords.minLength) and \(passwords.maxLength) characters")
        case .passwordRejected(let problem): return Self.body(.badRequest, "BadRequest", "password rejected: \(problem == .recentlyUsed ? "same as the current one" : "too common or too close to the email")")
        case .invalidEmail(let problem): return Self.body(.badRequest, "BadRequest", "email invalid: \(problem)")
        case .invalidUsername: return Self.body(.badRequest, "BadRequest", "email invalid")
        case .missing(let input): return Self.body(.badRequest, "MissingParameter", "\(Self.parameterName(input)) is required")
        case .linkTokenMalformed: return Self.body(.badRequest, "BadRequest", "invalid token data")
        case .linkTokenInvalid: return Self.body(.badRequest, "UserpassTokenInvalid", "userpass token is expired or invalid")
        case .userAlreadyConfirmed: return Self.body(.badRequest, "UserAlreadyConfirmed", "already confirmed")
        case .userNotFound: return Self.body(.notFound, "UserNotFound", "user not found")
        case .invalidCredentials: return Self.body(.unauthorized, "InvalidPassword", "invalid username/password")
        case .userPendingConfirmation: return Self.body(.unauthorized, "AuthError", "confirmation required")
        case .sessionInvalid, .sessionExpired, .accessTokenInvalid, .refreshTokenInvalid: return Self.body(.unauthorized, "InvalidSession", "invalid session")
        case .recoveryNotByMail: return Self.body(.badRequest, "BadRequest", "please use reset password via function")
        case .verificationFunctionRefused(let email): return Self.body(.badRequest, "BadRequest", "failed to confirm user \"\(email)\"")
        case .recoveryFunctionRefused(let email): return Self.body(.badRequest, "FunctionExecutionError", "failed to reset password for user \"\(email)\"")
        case .noVerificationFunction(true, let email):
            return Self.body(.badRequest, "InvalidConfiguration", "cannot run confirmation for \(email): automatic confirmation is enabled")
        case .noVerificationFunction(false, let email):
            return Self.body(.badRequest, "InvalidConfiguration", "cannot run confirmation for \(email): no confirmation function is configured")
        case .noRecoveryFunction(let email):
            return Self.body(.badRequest, "InvalidConfiguration", "cannot reset password for \(email): no reset function is configured")
        case .unknownClient: return Self.body(.notFound, "AppNotFound", "cannot find app using Client App ID '\(appId ?? "")'")
        case .rateLimited(let seconds, let limit):
            return Self.body(.tooManyRequests, "TooManyRequests", "too many \(limit.counts) (limits.\(limit.rawValue)), retry in \(seconds) seconds",
                             headers: [.retryAfter: String(seconds)])
        case .accountLocked(let seconds):
            return Self.body(.tooManyRequests, "TooManyRequests", "too many requests, retry in \(seconds) seconds",
                             headers: [.retryAfter: String(seconds)])
        case .serverBusy(let seconds):
            return Self.body(.serviceUnavailable, "InternalServerError", "server busy", headers: [.retryAfter: String(seconds)])
        case .storeFailure: return Self.body(.internalServerError, "InternalServerError", "internal server error")
        case .providerNotEnabled(let provider):
            return Self.body(.notFound, "AuthProviderNotFound", "authentication provider not found: \(provider) is not enabled for app \(appId ?? "")")
        case .identityRefused(let reason): return Self.body(.unauthorized, "AuthError", "invalid credentials: \(reason)")
        case .identityProviderUnavailable(let name):
            return Self.body(.serviceUnavailable, "AuthError", "could not fetch the keys of \(name); try again later",
                             headers: [.retryAfter: "60"])
        // What the hosted service answered for an identity of another user (realm-java's linkUser_existingCredentialsThrows).
        case .identityTaken: return Self.body(.unauthorized, "InvalidSession", "a user already exists with the specified provider")
        case .providerAlreadyLinked: return Self.body(.badRequest, "InvalidParameter", "the user already has an identity of this provider")
        case .linkRefused: return Self.body(.badRequest, "InvalidParameter", "invalid user link request")
        case .apiKeyNotFound: return Self.body(.notFound, "APIKeyNotFound", "API key not found")
        // Never 401 here: realm-core logs the user out on a 401 from the api_keys routes.
        case .apiKeyRefused(let reason), .passkeyRefused(let reason): return Self.body(.badRequest, "InvalidParameter", reason)
        // Never 401 either: the SDK would log the user out. 403 says the session cannot do this, whatever it retries.
        case .secondFactor(.signInNotRecent):
            return Self.body(.forbidden, "InsufficientAuthentication", "this change needs a recent sign-in: log in again, then retry")
        case .secondFactor(.stepUpNeeded):
            return Self.body(.forbidden, "InsufficientAuthentication",
                             "this account holds a second factor or a passkey, which App Services sign-ins cannot pass: make this change at the account page")
        case .lastWayIn: return Self.body(.badRequest, "BadRequest", "cannot remove the last identity of a user")
        case .unknownFunction(let name): return Self.body(.notFound, "FunctionNotFound", "function not found: '\(name)'")
        case .functionFailed(let message): return Self.body(.badRequest, "FunctionExecutionError", message)
        case .unsupportedChallengeType, .invalidScope, .userHasNoPassword, .invalidAttributes, .invalidCode, .flowTokenInvalid,
             .flowTokenExpired, .flowStepMismatch, .secondFactorRequired, .secondFactorInvalid, .secondFactor, .openID, .invalidFieldName,
             .fieldTypeMismatch, .fieldsOverLimit, .objectNotFound, .notPermitted, .fieldNotWritable:
            let errorClass = error.errorClass
            let code = switch errorClass {
            case .unauthenticated: "AuthError"
            case .forbidden: "InsufficientAuthentication"
            default: "BadRequest"
            }
            return Self.body(HTTPResponse.Status(code: errorClass.httpStatus), code, error.reason.words,
                             headers: errorClass.retryAfterSeconds.map { [.retryAfter: String($0)] } ?? [:])
        }
    }

    /// The provider's field names.
    static func parameterName(_ input: RequiredInput) -> String {
        switch input {
        case .email, .username: "email"
        case .password, .newPassword: "password"
        case .refreshToken: "refresh_token"
        case .clientId: "client_app_id"
        case .code, .continuationToken, .challengeTypes, .attributes: "token"
        }
    }

    static func body(_ status: HTTPResponse.Status, _ code: String, _ message: String, headers: HTTPFields = [:]) -> Response {
        JSONResponse.make(status, ["error": .string(message), "error_code": .string(code)], headers: headers)
    }
}

/// The App Services dialect's one error mapping, for every route under its prefix.
extension AppServicesError: DialectErrors {
    func response(for error: any Error, context: LatchkeyRequestContext) -> Response? {
        switch error {
        case let error as LatchkeyError:
            return response(for: error, appId: context.parameters.get("app"))
        case let error as MalformedRequest:
            if let expected = error.expected { return Self.body(.badRequest, "BadRequest", "\(error.what) must be \(expected)") }
            return Self.body(.badRequest, "BadRequest", "request body must be a JSON object of the provider's fields")
        case let error as HTTPResponseError where error.status == .contentTooLarge:
            return Self.body(.contentTooLarge, "BadRequest", "request body too large")
        default:
            return nil
        }
    }
}
