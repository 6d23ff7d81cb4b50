/// Each engine refusal's class, decided here once: the native API, App Services, Parse, the pages, the admin API and
/// the console answer it with their status for the class, apart from the wire quirks their clients need
/// (docs/architecture.md, "Errors").
extension LatchkeyError: ClassifiedError {
    public var errorClass: ErrorClass {
        switch self {
        case .missing, .invalidEmail, .invalidUsername, .unsupportedChallengeType, .userHasNoPassword, .passwordRejected,
             .invalidAttributes, .flowTokenInvalid, .flowTokenExpired, .flowStepMismatch, .invalidScope, .linkTokenMalformed,
             .linkTokenInvalid, .invalidFieldName, .fieldsOverLimit, .fieldTypeMismatch, .functionFailed, .recoveryNotByMail,
             .verificationFunctionRefused, .recoveryFunctionRefused, .noVerificationFunction, .noRecoveryFunction, .linkRefused,
             .apiKeyRefused, .passkeyRefused:
            .invalid
        case .invalidCode, .invalidCredentials, .refreshTokenInvalid, .accessTokenInvalid, .userPendingConfirmation,
             .sessionInvalid, .sessionExpired, .identityRefused, .secondFactorRequired, .secondFactorInvalid:
            .unauthenticated
        case .notPermitted, .fieldNotWritable:
            .forbidden
        case .unknownClient, .userNotFound, .objectNotFound, .unknownFunction, .providerNotEnabled, .apiKeyNotFound:
            .notFound
        case .emailTaken, .usernameTaken, .userAlreadyConfirmed, .identityTaken, .providerAlreadyLinked, .lastWayIn:
            .conflict
        case .rateLimited(let seconds, _), .accountLocked(let seconds):
            .throttled(retryAfterSeconds: seconds)
        case .serverBusy(let seconds):
            .unavailable(retryAfterSeconds: seconds)
        // An issuer's keys may be fetched again after the cache's refetch interval.
        case .identityProviderUnavailable:
            .unavailable(retryAfterSeconds: Int(KeySetCache.refetchInterval))
        case .storeFailure:
            .internal
        case .secondFactor(let problem):
            problem.errorClass
        case .openID(let problem):
            problem.errorClass
        }
    }
}

extension SecondFactorProblem {
    public var errorClass: ErrorClass {
        switch self {
        case .invalidData, .invalidContact, .notPending, .methodNotEnabled, .sameKindAsFirstFactor: .invalid
        case .codeSent: .unauthenticated
        case .unknownMethod: .notFound
        case .alreadyEnrolled: .conflict
        case .signInNotRecent, .stepUpNeeded, .noUsableMethod: .forbidden
        // The person asks for another text; the delay keeps a failing sender from being hammered.
        case .deliveryFailed: .unavailable(retryAfterSeconds: 30)
        }
    }
}

extension OpenIDProblem {
    public var errorClass: ErrorClass {
        switch self {
        // A token endpoint's errors are 400 (RFC 6749 §5.2), the device grant's answers to a poll among them.
        case .invalidRequest, .invalidGrant, .unsupportedGrantType, .unsupportedResponseType, .authorizationPending, .slowDown,
             .expiredToken, .accessDenied, .invalidRedirectURI, .invalidClientMetadata, .invalidTarget: .invalid
        case .invalidClient, .loginRequired: .unauthenticated
        case .unauthorizedClient, .consentRequired: .forbidden
        }
    }
}
