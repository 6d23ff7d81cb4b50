import HTTPTypes
import Hummingbird
import LatchkeyCore

/// Parse's error body `{"code": int, "error": str}` with Parse Server's statuses: 500 for code 1, 404 for 101, 400
/// otherwise (docs/parse.md), and 429 / 503 with `Retry-After` for the throttled and unavailable classes
/// (`ErrorClass`), where ParseSwift retries. The lockout is Parse Server's own answer (101, no delay).
struct ParseError: Error, Sendable {
    let code: Int
    let message: String
    var status: HTTPResponse.Status?
    var retryAfterSeconds: Int?

    init(_ code: Int, _ message: String, status: HTTPResponse.Status? = nil, retryAfterSeconds: Int? = nil) {
        self.code = code; self.message = message; self.status = status; self.retryAfterSeconds = retryAfterSeconds
    }

    var response: Response { prepared.response }

    var prepared: EdgeAnswer {
        let status = status ?? (code == 1 ? .internalServerError : code == 101 ? .notFound : .badRequest)
        return JSONResponse.prepared(status, value: .object(["code": .int(code), "error": .string(message)]),
                                     headers: retryAfterSeconds.map { [.retryAfter: String($0)] } ?? [:])
    }

    /// A missing or unknown application id, a client key that does not match, a master key from elsewhere: 403 with
    /// the raw body Parse Server answers (no `code`).
    static var unauthorized: Response { JSONResponse.make(.forbidden, ["error": "unauthorized"]) }

    static let invalidSession = ParseError(209, "Invalid session token")

    init(_ error: LatchkeyError) {
        switch error {
        case .missing(.username), .missing(.email), .invalidUsername: self.init(200, "bad or missing username")
        case .missing(.password), .missing(.newPassword): self.init(201, "password is required")
        case .missing: self.init(107, "Invalid JSON.")
        case .invalidEmail(let problem): self.init(125, "Email address format is invalid: \(problem).")
        case .usernameTaken: self.init(202, "Account already exists for this username.")
        case .emailTaken: self.init(203, "Account already exists for this email address.")
        case .passwordRejected: self.init(142, "Password does not meet the Password Policy requirements.")
        case .invalidCredentials, .userNotFound, .userHasNoPassword: self.init(101, "Invalid username/password.")
        case .accountLocked(let seconds):
            let minutes = max(1, (seconds + 59) / 60)
            self.init(101, "Your account is locked due to multiple failed login attempts. Please try again after \(minutes) minute(s)")
        case .userPendingConfirmation: self.init(205, "User email is not verified.")
        case .sessionInvalid, .accessTokenInvalid, .refreshTokenInvalid: self = Self.invalidSession
        case .sessionExpired: self.init(209, "Session token is expired.")
        case .invalidFieldName(let name): self.init(105, "Invalid field name: \(name).")
        case .fieldTypeMismatch(let field, let expected, let got): self.init(111, "schema mismatch for _User.\(field); expected \(expected) but got \(got)")
        case .invalidAttributes(let names): self.init(142, "Invalid value for \(names.joined(separator: ", ")): it does not match the attribute's schema.")
        case .fieldsOverLimit(let fields, let bytes):
            self.init(116, "The user's fields are over the limit: at most \(fields) fields and \(bytes) bytes.")
        case .rateLimited(let seconds, let limit):
            self.init(100, "Too many \(limit.counts) (limits.\(limit.rawValue)).", status: .tooManyRequests, retryAfterSeconds: seconds)
        case .serverBusy(let seconds): self.init(1, "Server busy.", status: .serviceUnavailable, retryAfterSeconds: seconds)
        case .storeFailure: self.init(1, "Internal server error.")
        case .unknownClient: self.init(119, "Permission denied.")
        case .objectNotFound: self.init(101, "Object not found.")
        case .notPermitted: self.init(206, "Insufficient auth.")
        case .fieldNotWritable: self.init(119, "Clients aren't allowed to manually update email verification.")
        case .unknownFunction(let name): self.init(141, "Invalid function: \"\(name)\"")
        case .functionFailed(let message): self.init(141, message)
        case .linkTokenMalformed, .linkTokenInvalid: self.init(-1, "Failed to reset password: token is invalid")
        case .userAlreadyConfirmed: self.init(-1, "Email is already verified.")
        case .providerNotEnabled: self.init(252, "This authentication method is unsupported.")
        case .identityRefused(let reason): self.init(101, "Invalid auth data: \(reason).")
        case .identityProviderUnavailable(let name):
            self.init(1, "Could not fetch the keys of \(name); try again later.", status: .serviceUnavailable,
                      retryAfterSeconds: error.errorClass.retryAfterSeconds)
        case .identityTaken, .providerAlreadyLinked: self.init(208, "this auth is already used")
        case .linkRefused: self.init(252, "Anonymous auth data cannot be added to an account with another way to sign in.")
        case .apiKeyNotFound, .apiKeyRefused, .passkeyRefused: self.init(-1, "The request is not valid for this endpoint.")
        case .lastWayIn: self.init(-1, "Cannot remove the last way to sign in to this account.")
        // Parse Server's `mfa` adapter's texts (its errors are plain strings, hence 141), and -1 for a missing token.
        case .secondFactorRequired: self.init(-1, "Missing additional authData mfa")
        case .secondFactorInvalid: self.init(141, "Invalid MFA token")
        case .secondFactor(.invalidData): self.init(141, "Invalid MFA data")
        case .secondFactor(.invalidContact): self.init(141, "Invalid mobile number.")
        case .secondFactor(.notPending): self.init(141, "This number is not pending")
        case .secondFactor(.alreadyEnrolled): self.init(141, "MFA is already set up on this account")
        case .secondFactor(.methodNotEnabled(let method)):
            self.init(252, "This authentication method is unsupported: mfa \(method) is not enabled for this app.")
        case .secondFactor(.unknownMethod): self.init(141, "Invalid MFA data")
        case .secondFactor(.noUsableMethod):
            self.init(141, "This account's second factor cannot be used by this app: sign in through the browser.")
        case .secondFactor(.stepUpNeeded):
            self.init(119, "This change needs a sign-in with the account's second factor, which this app cannot ask for.")
        case .secondFactor(.deliveryFailed):
            self.init(141, "The text message could not be sent; try again later.", status: .serviceUnavailable,
                      retryAfterSeconds: error.errorClass.retryAfterSeconds)
        case .secondFactor(.codeSent): self.init(141, "Please enter the token")
        case .secondFactor(.sameKindAsFirstFactor): self.init(141, "This factor is of the same kind as the first one")
        case .secondFactor(.signInNotRecent): self.init(209, "Sign in again to change the second factor")
        case .unsupportedChallengeType, .invalidScope, .invalidCode, .flowTokenInvalid, .flowTokenExpired, .flowStepMismatch,
             .recoveryNotByMail, .verificationFunctionRefused,
             .recoveryFunctionRefused, .noVerificationFunction, .noRecoveryFunction, .openID:
            self.init(-1, "The request is not valid for this endpoint.")
        }
    }
}

/// The Parse dialect's one error mapping, for every route under its mount.
struct ParseErrors: DialectErrors {
    func response(for error: any Error, context: LatchkeyRequestContext) -> Response? {
        switch error {
        case let error as ParseError: error.response
        case let error as LatchkeyError: Self.response(for: error)
        case is MalformedRequest: ParseError(107, "Invalid JSON.").response
        case let error as HTTPResponseError where error.status == .contentTooLarge:
            ParseError(116, "The object is too large.", status: .contentTooLarge).response
        default: nil
        }
    }

    static func response(for error: LatchkeyError) -> Response {
        error == .unknownClient ? ParseError.unauthorized : ParseError(error).response
    }
}
