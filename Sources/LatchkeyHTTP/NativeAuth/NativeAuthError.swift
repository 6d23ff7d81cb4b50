import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The native dialect's error body (`error`, `error_description`, `error_codes`, `suberror`, ...). The status is the
/// error's class as MSAL reads it: every client class is 400 (the SDK reads the body's codes, not the status), apart
/// from the bearer and client-authentication answers RFC 6750, 6749 §5.2 and 9470 make 401; a throttled class is 429,
/// an unavailable one 503, both with `Retry-After`, and the server's own failure 500.
enum NativeAuthError {
    static func response(for error: LatchkeyError) -> Response {
        switch error {
        case .openID(let problem):
            // The token endpoint's OAuth errors (RFC 6749 §5.2): a failed client authentication is 401.
            return problem.code == "invalid_client"
                ? body(problem.code, problem.description, [7000215], status: .unauthorized, headers: [.wwwAuthenticate: "Basic realm=\"latchkey\""])
                : body(problem.code, problem.description, [9002313])
        case .unknownClient:
            return body("unauthorized_client", "The client_id is not registered with this server.", [700016])
        case .missing(.clientId):
            return body("unauthorized_client", "client_id parameter is empty or not valid", [900144])
        case .missing(let input):
            return malformed(parameterName(input))
        case .invalidEmail(.empty):
            return malformed("username")
        case .invalidEmail(let problem):
            return body("invalid_request", "username is not a valid email address: \(problem).", [90100])
        case .invalidUsername:
            return malformed("username")
        case .unsupportedChallengeType:
            return body("unsupported_challenge_type", "The challenge_type list must include redirect.", [901007])
        case .emailTaken, .usernameTaken:
            return body("user_already_exists", "It looks like you may already have an account.", [1003037])
        case .userNotFound:
            return body("user_not_found", "The username does not exist.", [50034])
        case .userHasNoPassword:
            return body("invalid_request", "The user does not have a password.", [500222])
        case .passwordRejected(let problem):
            return body("invalid_grant", passwordDescription(problem), [399246], extra: ["suberror": .string(passwordSuberror(problem))])
        case .invalidAttributes(let names):
            return body("invalid_grant", "Attribute validation failed.", [90100], extra: [
                "suberror": "attribute_validation_failed",
                "invalid_attributes": .array(names.map { .object(["name": .string($0)]) }),
            ])
        case .invalidCode(let left):
            let text = left > 0 ? "The code is wrong." : "The code is no longer valid; request a new one."
            return body("invalid_grant", text, [50181], extra: ["suberror": "invalid_oob_value"])
        case .invalidCredentials:
            return body("invalid_grant", "Error validating credentials due to invalid username or password.", [50126])
        case .flowTokenInvalid:
            return body("invalid_grant", "The continuation token is invalid.", [55200])
        case .flowTokenExpired:
            return body("expired_token", "The continuation token has expired.", [552003])
        case .flowStepMismatch(let why):
            return body("invalid_request", "The continuation token is not valid for this step: \(why).", [55200])
        case .invalidScope(let scope):
            return body("invalid_scope", "The scope '\(scope)' is not allowed for this client.", [70011])
        case .refreshTokenInvalid:
            return body("invalid_grant", "The refresh token is invalid, expired or revoked.", [70000])
        case .accessTokenInvalid:
            return JSONResponse.make(.unauthorized, ["error": "invalid_token", "error_description": "The access token is invalid or expired."],
                                     headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""])
        case .rateLimited, .accountLocked, .serverBusy, .identityProviderUnavailable, .secondFactor(.deliveryFailed):
            return throttledOrBusy(error)
        case .linkTokenMalformed, .linkTokenInvalid, .userAlreadyConfirmed, .userPendingConfirmation, .sessionInvalid,
             .sessionExpired, .invalidFieldName, .fieldTypeMismatch, .fieldsOverLimit, .objectNotFound, .notPermitted, .fieldNotWritable, .unknownFunction, .functionFailed, .recoveryNotByMail, .verificationFunctionRefused, .recoveryFunctionRefused, .noVerificationFunction, .noRecoveryFunction,
             .providerNotEnabled, .identityRefused, .identityTaken, .providerAlreadyLinked,
             .linkRefused, .lastWayIn, .apiKeyNotFound, .apiKeyRefused, .passkeyRefused, .secondFactorRequired:
            return body("invalid_request", "The request is not valid for this endpoint.", [90100])
        case .secondFactorInvalid:
            return body("invalid_grant", "The code is wrong.", [50181], extra: ["suberror": "invalid_oob_value"])
        case .secondFactor(let problem):
            return secondFactor(problem)
        case .storeFailure:
            return JSONResponse.make(.internalServerError, ["error": "server_error",
                                                            "error_description": "The server could not complete the request."])
        }
    }

    /// The answers whose class carries a delay: `slow_down` (MSAL's throttling code) or `temporarily_unavailable`.
    private static func throttledOrBusy(_ error: LatchkeyError) -> Response {
        let errorClass = error.errorClass, seconds = errorClass.retryAfterSeconds ?? 1
        let headers: HTTPFields = [.retryAfter: String(seconds)]
        switch (error, errorClass) {
        case (.rateLimited(_, let limit), _):
            return body("slow_down", "Too many \(limit.counts) (limits.\(limit.rawValue)). Try again in \(seconds) seconds.", [50053],
                        status: .tooManyRequests, headers: headers)
        case (_, .throttled):
            return body("slow_down", "Too many attempts. Try again in \(seconds) seconds.", [50053], status: .tooManyRequests, headers: headers)
        case (.secondFactor(.deliveryFailed), _):
            return JSONResponse.make(.serviceUnavailable, ["error": "temporarily_unavailable",
                                                           "error_description": "The text message could not be sent; try again shortly."],
                                     headers: headers)
        case (.identityProviderUnavailable, _):
            return JSONResponse.make(.serviceUnavailable, ["error": "temporarily_unavailable",
                                                           "error_description": "The identity provider's keys could not be fetched; retry shortly."],
                                     headers: headers)
        default:
            return JSONResponse.make(.serviceUnavailable, ["error": "temporarily_unavailable",
                                                           "error_description": "The server is busy; retry shortly."], headers: headers)
        }
    }

    /// `invalid_request` with 901001 makes MSAL's `isInvalidInput()` true (an unknown method, a bad contact).
    static func secondFactor(_ problem: SecondFactorProblem) -> Response {
        switch problem {
        case .unknownMethod:
            return body("invalid_request", "The id is not one of this account's authentication methods.", [901001])
        case .invalidContact:
            return body("invalid_request", "The challenge_target is not a valid email address or phone number.", [901001])
        case .signInNotRecent(let maxAge):
            // RFC 9470: the client signs the user in again (max_age) and retries.
            let text = "Changing a second factor needs a sign-in within the last \(maxAge) seconds: sign in again, then retry."
            return JSONResponse.make(.unauthorized, ["error": "insufficient_user_authentication", "error_description": .string(text)],
                                     headers: [.wwwAuthenticate: "Bearer error=\"insufficient_user_authentication\", error_description=\"\(text)\", max_age=\(maxAge)"])
        case .stepUpNeeded:
            // RFC 9470: the account holds more than this sign-in proved; sign in with its second factor, then retry.
            let text = "This change needs a sign-in that passed the account's second factor: sign in again with it, then retry."
            return JSONResponse.make(.unauthorized, ["error": "insufficient_user_authentication", "error_description": .string(text)],
                                     headers: [.wwwAuthenticate: "Bearer error=\"insufficient_user_authentication\", error_description=\"\(text)\", acr_values=\"2\""])
        case .sameKindAsFirstFactor:
            return body("invalid_request", "The address this sign-in came through cannot also be its second factor: give a phone "
                        + "number or another address.", [901001])
        case .methodNotEnabled(let method):
            return body("invalid_request", "The authentication method \(method) is not enabled for this client.", [901001])
        case .deliveryFailed:
            return throttledOrBusy(.secondFactor(problem))
        case .invalidData, .notPending, .alreadyEnrolled, .codeSent, .noUsableMethod:
            return body("invalid_request", "The request is not valid for this endpoint.", [90100])
        }
    }

    /// A field or body that could not be read.
    static func malformed(_ what: String) -> Response {
        body("invalid_request", "\(what) parameter is empty or not valid", [90100])
    }

    /// The native API's parameter names.
    static func parameterName(_ input: RequiredInput) -> String {
        switch input {
        case .clientId: "client_id"
        case .email, .username: "username"
        case .password: "password"
        case .newPassword: "new_password"
        case .code: "oob"
        case .continuationToken: "continuation_token"
        case .refreshToken: "refresh_token"
        case .challengeTypes: "challenge_type"
        case .attributes: "attributes"
        }
    }

    /// Flow outcomes the SDK receives as 400s carrying a fresh continuation token.
    static func credentialRequired(_ token: String) -> Response {
        body("credential_required", "Credential required.", [55103], extra: ["continuation_token": .string(token)])
    }

    static func attributesRequired(_ token: String, _ required: [AttributeDefinition]) -> Response {
        let list: [JSONValue] = required.map { definition in
            var item: [String: JSONValue] = ["name": .string(definition.name), "type": .string(definition.kind.rawValue),
                                             "required": .bool(definition.required)]
            if let regex = definition.regex { item["options"] = .object(["regex": .string(regex)]) }
            return .object(item)
        }
        return body("attributes_required", "User attributes required.", [55106],
                    extra: ["continuation_token": .string(token), "required_attributes": .array(list)])
    }

    static func body(_ error: String, _ description: String, _ codes: [Int], extra: [String: JSONValue] = [:],
                     status: HTTPResponse.Status = .badRequest, headers: HTTPFields = [:]) -> Response {
        var fields: [String: JSONValue] = [
            "error": .string(error), "error_description": .string(description), "error_codes": .array(codes.map(JSONValue.int)),
            // Foundation's format style, not a new `ISO8601DateFormatter` per error: that builds an ICU formatter
            // (about 60 µs, a third of a rejected request's CPU); the text is the same.
            "timestamp": .string(Date().formatted(.iso8601)),
            "trace_id": .string(SecureRandom.uuidString()), "correlation_id": .string(SecureRandom.uuidString()),
        ]
        fields.merge(extra) { _, new in new }
        return JSONResponse.make(status, fields, headers: headers)
    }

    static func passwordSuberror(_ problem: PasswordProblem) -> String {
        switch problem {
        case .tooShort: "password_too_short"
        case .tooLong: "password_too_long"
        case .tooWeak: "password_too_weak"
        case .banned: "password_banned"
        case .recentlyUsed: "password_recently_used"
        }
    }

    static func passwordDescription(_ problem: PasswordProblem) -> String {
        switch problem {
        case .tooShort: "The password is too short."
        case .tooLong: "The password is too long."
        case .tooWeak: "The password is too weak."
        case .banned: "The password is too common or too close to the username."
        case .recentlyUsed: "The password was used recently."
        }
    }
}

extension HTTPField.Name {
    static let retryAfter = HTTPField.Name("Retry-After")!
}

/// The native API's one error mapping: what an endpoint throws becomes that dialect's error body. Anything else
/// (413, broken framing) is left to the edge.
struct NativeAuthErrors: DialectErrors {
    func response(for error: any Error, context: LatchkeyRequestContext) -> Response? {
        switch error {
        case let error as LatchkeyError: NativeAuthError.response(for: error)
        case let error as MalformedRequest: NativeAuthError.malformed(error.what)
        default: nil
        }
    }
}
