import HTTPTypes
import Hummingbird
@testable import LatchkeyCore
@testable import LatchkeyHTTP
import Testing

/// Every engine refusal through every surface's one mapping: the statuses agree with the class the engine gave the
/// error, and every throttled or unavailable answer carries its `Retry-After`, apart from the wire quirks named here
/// (each is what that surface's client reads; docs/architecture.md, "Errors").
@Suite struct ErrorClassAgreementTests {
    enum Surface: String, CaseIterable { case native, appServices, parse, pages, admin }
    static let retryAfter = HTTPField.Name("Retry-After")!

    /// Answers that differ from their class on purpose, and why.
    static let quirks: [Surface: [LatchkeyError: String]] = [
        .native: [
            .accessTokenInvalid: "RFC 6750: a bearer token refused is 401 with WWW-Authenticate",
            .openID(.invalidClient("bad secret")): "RFC 6749 §5.2: a failed client authentication is 401",
            .secondFactor(.signInNotRecent(maxAgeSeconds: 300)): "RFC 9470: insufficient_user_authentication is 401",
            .secondFactor(.stepUpNeeded): "RFC 9470: insufficient_user_authentication is 401",
        ],
        .appServices: [
            .userAlreadyConfirmed: "the hosted service answered 400 UserAlreadyConfirmed",
            .providerAlreadyLinked: "the hosted service answered 400 InvalidParameter",
            .identityTaken: "realm-java's linkUser_existingCredentialsThrows expects 401 InvalidSession",
            .lastWayIn: "the hosted service answered 400 for removing the last identity",
        ],
        .parse: [
            .accountLocked(retryAfterSeconds: 90): "Parse Server's lockout is code 101 with no delay, which ParseSwift shows",
            .unknownClient: "Parse Server answers a wrong application id 403 {\"error\": \"unauthorized\"}",
        ],
    ]

    static let samples: [LatchkeyError] = [
        .unknownClient, .missing(.password), .invalidEmail(.noAt), .invalidUsername, .unsupportedChallengeType, .emailTaken,
        .usernameTaken, .userNotFound, .userHasNoPassword, .passwordRejected(.tooShort), .passwordRejected(.banned),
        .invalidAttributes(["age"]), .invalidCode(attemptsLeft: 2), .invalidCredentials, .flowTokenInvalid, .flowTokenExpired,
        .flowStepMismatch("not this step"), .refreshTokenInvalid, .invalidScope("admin"), .accessTokenInvalid,
        .serverBusy(retryAfterSeconds: 2), .rateLimited(retryAfterSeconds: 30, limit: .signInPerIP),
        .accountLocked(retryAfterSeconds: 90), .linkTokenMalformed, .linkTokenInvalid, .userAlreadyConfirmed,
        .userPendingConfirmation, .sessionInvalid, .sessionExpired, .invalidFieldName("_x"), .fieldsOverLimit(maxFields: 5, maxBytes: 100),
        .fieldTypeMismatch(field: "age", expected: "Number", got: "String"), .objectNotFound, .notPermitted,
        .fieldNotWritable("emailVerified"), .unknownFunction("nope"), .functionFailed("no"), .recoveryNotByMail,
        .verificationFunctionRefused(email: "a@example.com"), .recoveryFunctionRefused(email: "a@example.com"),
        .noVerificationFunction(automatic: true, email: "a@example.com"), .noRecoveryFunction(email: "a@example.com"), .storeFailure,
        .providerNotEnabled("oauth2-apple"), .identityRefused("expired"), .identityProviderUnavailable("apple"), .identityTaken,
        .providerAlreadyLinked, .linkRefused, .apiKeyNotFound, .apiKeyRefused("too many"), .passkeyRefused("bad signature"), .lastWayIn,
        .secondFactorRequired, .secondFactorInvalid,
        .secondFactor(.invalidData), .secondFactor(.invalidContact), .secondFactor(.notPending), .secondFactor(.alreadyEnrolled),
        .secondFactor(.methodNotEnabled("sms")), .secondFactor(.unknownMethod), .secondFactor(.deliveryFailed), .secondFactor(.codeSent),
        .secondFactor(.sameKindAsFirstFactor), .secondFactor(.signInNotRecent(maxAgeSeconds: 300)), .secondFactor(.stepUpNeeded),
        .secondFactor(.noUsableMethod),
        .openID(.invalidRequest("x")), .openID(.invalidClient("bad secret")), .openID(.invalidGrant("used")),
        .openID(.unauthorizedClient("x")), .openID(.unsupportedGrantType), .openID(.unsupportedResponseType), .openID(.loginRequired),
        .openID(.consentRequired), .openID(.accessDenied),
    ]

    @Test func theSamplesCoverEveryReason() {
        #expect(Set(Self.samples.map(\.reason)) == Set(LatchkeyError.Reason.allCases))
    }

    @Test(arguments: Surface.allCases) func statusesAgreeWithTheClass(_ surface: Surface) throws {
        var disagreements: [String] = []
        for error in Self.samples where Self.quirks[surface]?[error] == nil {
            let answer = try #require(Self.answer(surface, error), "\(surface) has no answer for \(error)")
            let errorClass = error.errorClass
            if !Self.expected(surface, errorClass).contains(answer.status.code) {
                disagreements.append("\(error) (\(errorClass)) answered \(answer.status.code)")
            }
            if answer.headers[Self.retryAfter] != errorClass.retryAfterSeconds.map(String.init) {
                disagreements.append("\(error) Retry-After \(answer.headers[Self.retryAfter] ?? "none")")
            }
        }
        #expect(disagreements.isEmpty, "\(surface): \(disagreements.joined(separator: "; "))")
    }

    /// A quirk is listed only while the surface really answers otherwise than its class: a stale entry fails.
    @Test(arguments: Surface.allCases) func everyQuirkIsReal(_ surface: Surface) throws {
        for error in (Self.quirks[surface] ?? [:]).keys {
            let answer = try #require(Self.answer(surface, error))
            let agrees = Self.expected(surface, error.errorClass).contains(answer.status.code)
                && answer.headers[Self.retryAfter] == error.errorClass.retryAfterSeconds.map(String.init)
            #expect(!agrees, "\(surface) answers \(error) as its class: drop the quirk")
        }
    }

    /// The statuses a surface's wire allows for a class.
    static func expected(_ surface: Surface, _ errorClass: ErrorClass) -> Set<Int> {
        switch (surface, errorClass) {
        case (_, .throttled): [429]
        case (_, .unavailable): [503]
        case (_, .internal): [500]
        // MSAL reads a refusal's codes from a 400 body; the hosted pages show the step again with the reason.
        case (.native, _), (.pages, _): [400]
        // Parse Server's statuses come from the code: 101 is 404, the rest 400.
        case (.parse, _): [400, 404]
        case (.appServices, _), (.admin, _): [errorClass.httpStatus]
        }
    }

    static func answer(_ surface: Surface, _ error: LatchkeyError) -> (status: HTTPResponse.Status, headers: HTTPFields)? {
        let response: Response
        switch surface {
        case .native: response = NativeAuthError.response(for: error)
        case .appServices: response = AppServicesError(passwords: PasswordPolicy()).response(for: error, appId: "app")
        case .parse: response = ParseErrors.response(for: error)
        case .pages: response = PageStatus.answer(Response(status: .ok), for: error)
        case .admin:
            guard let failure = AdminFailure(error) else { return nil }
            return (failure.status, failure.headers)
        }
        return (response.status, response.headers)
    }
}
