/// Why a password was refused by the policy; each dialect names these in its own words.
public enum PasswordProblem: String, Sendable, Equatable {
    case tooShort, tooLong, tooWeak, banned, recentlyUsed
}

/// Why an email address was refused; each dialect puts `description` in its own error.
public enum EmailProblem: String, Error, Sendable, Equatable, CustomStringConvertible {
    case empty, noAt, tooLong, localPart, domain, notASCII

    public var description: String {
        switch self {
        case .empty: "it is empty"
        case .noAt: "it needs one @ between a name and a domain"
        case .tooLong: "it is longer than an address may be (254 bytes, 64 before the @, 63 per domain label)"
        case .localPart: "before the @ it may hold letters, digits, dots (not first, last or doubled) and !#$%&'*+-/=?^_`{|}~"
        case .domain: "after the @ it needs a domain of at least two labels of letters, digits and inner hyphens"
        case .notASCII: "internationalized addresses are not accepted: write the domain in its xn-- form"
        }
    }
}

/// A value an engine call needs and did not get. Each dialect names it in its own parameter vocabulary.
public enum RequiredInput: Sendable, Hashable {
    case clientId, email, username, password, newPassword, code, continuationToken, refreshToken, challengeTypes, attributes
}

/// Every way an engine call can fail, in the engine's terms. Each dialect maps these, and only these, to its
/// own wire errors; no case carries wire text.
public enum LatchkeyError: Error, Sendable, Hashable {
    /// No registered client or app by that id.
    case unknownClient
    case missing(RequiredInput)
    case invalidEmail(EmailProblem)
    case invalidUsername
    /// The client cannot fall back to the browser (its challenge types leave out redirect).
    case unsupportedChallengeType
    case emailTaken
    case usernameTaken
    case userNotFound
    case userHasNoPassword
    case passwordRejected(PasswordProblem)
    case invalidAttributes([String])
    case invalidCode(attemptsLeft: Int)
    case invalidCredentials
    /// The continuation token is unknown, already used, or belongs to another flow.
    case flowTokenInvalid
    case flowTokenExpired
    /// The token is valid but this step is not the one the flow is waiting for.
    case flowStepMismatch(String)
    case refreshTokenInvalid
    /// A requested scope that is neither a standard one nor configured for the client.
    case invalidScope(String)
    case accessTokenInvalid
    case serverBusy(retryAfterSeconds: Int)
    /// Over a rate limit, or the account is locked after wrong passwords: retry after the delay.
    case rateLimited(retryAfterSeconds: Int, limit: LimitSettings.Rule)
    /// Too many wrong passwords: the account is locked this much longer.
    case accountLocked(retryAfterSeconds: Int)
    /// A link token pair that is not even well-formed.
    case linkTokenMalformed
    /// Well-formed but unknown, used, expired, or for another purpose.
    case linkTokenInvalid
    case userAlreadyConfirmed
    case userPendingConfirmation
    case sessionInvalid
    /// A session that existed but whose lifetime is over.
    case sessionExpired
    /// A custom field whose name is not `^[A-Za-z][0-9A-Za-z_]*$` or is reserved.
    case invalidFieldName(String)
    /// A write that would leave a user more fields, or larger ones, than the deployment allows.
    case fieldsOverLimit(maxFields: Int, maxBytes: Int)
    /// A custom field written with another type than its first write gave it.
    case fieldTypeMismatch(field: String, expected: String, got: String)
    /// The named account or session does not exist, or the caller may not see it.
    case objectNotFound
    /// The caller may act only on its own account (or needs the master key).
    case notPermitted
    /// A field only the master key may write (`emailVerified`).
    case fieldNotWritable(String)
    /// No operator function by that name is open to the app.
    case unknownFunction(String)
    /// The operator's function answered an error, timed out or answered nonsense; the message is the function's own
    /// (or a generic one), never the internal reason.
    case functionFailed(String)
    /// The app recovers passwords through its function, not by mailed link.
    case recoveryNotByMail
    /// The verification function answered `fail` (or failed): no account was created / it stays pending.
    case verificationFunctionRefused(email: String)
    /// The recovery function answered `fail` (or failed).
    case recoveryFunctionRefused(email: String)
    /// A function-run verification asked of an app that verifies otherwise.
    case noVerificationFunction(automatic: Bool, email: String)
    /// A function-run recovery asked of an app that recovers by mail.
    case noRecoveryFunction(email: String)
    /// The store failed; nothing was written. Details go to the log only.
    case storeFailure
    /// The app does not sign in through that provider (not configured here, or not enabled for the app).
    case providerNotEnabled(String)
    /// The credential a provider's strategy checked did not prove an identity; the reason names what failed
    /// (expired, wrong audience, unknown key, ...) and never echoes the token.
    case identityRefused(String)
    /// The provider's keys could not be fetched and none are cached for this token.
    case identityProviderUnavailable(String)
    /// The identity belongs to another account.
    case identityTaken
    /// The account already has an identity of that provider (a different one).
    case providerAlreadyLinked
    /// The credential cannot be linked onto an existing account (an anonymous identity, an API key).
    case linkRefused
    /// No API key by that id among the caller's.
    case apiKeyNotFound
    /// The caller may not create this API key; the reason says why (an anonymous account, too many keys, a bad name).
    case apiKeyRefused(String)
    /// A passkey registration or sign-in the relying party refused; the reason names the check that failed.
    case passkeyRefused(String)
    /// Removing it would leave the account no way in.
    case lastWayIn
    /// The account has a second factor and the request brought none.
    case secondFactorRequired
    /// The second-factor code (authenticator, recovery, text message) is wrong, used or expired.
    case secondFactorInvalid
    /// A second-factor request the server cannot take; the problem says which.
    case secondFactor(SecondFactorProblem)
    /// An OpenID provider request refused (issue R); the problem names the OAuth error.
    case openID(OpenIDProblem)
}

/// Why a second-factor enrolment or challenge was refused.
public enum SecondFactorProblem: Sendable, Hashable {
    /// The enrolment data is incomplete or malformed (a secret too short, a token missing).
    case invalidData
    /// Not a phone number (or an email address, for an email factor).
    case invalidContact
    /// No enrolment waits for that phone number.
    case notPending
    /// The account already has a factor of this kind.
    case alreadyEnrolled
    /// The method is not among `mfa.methods`, or the app's policy is `off`.
    case methodNotEnabled(String)
    /// No such factor on this account.
    case unknownMethod
    /// The operator's function did not deliver the text message.
    case deliveryFailed
    /// A code was texted on request; the client sends it next.
    case codeSent
    /// The factor is of the kind the journey's first factor was (the mailbox it just signed in with).
    case sameKindAsFirstFactor
    /// Changing factors needs a sign-in within this many seconds; the token's is older (RFC 9470 step-up).
    case signInNotRecent(maxAgeSeconds: Int)
    /// The account holds more than this sign-in proved (a second factor or a passkey, or another way in than the
    /// one being removed): sign in again with them (RFC 9470 `acr_values`), then retry.
    case stepUpNeeded
    /// A second factor is due, but none this account has or could enrol is offered where the journey runs.
    case noUsableMethod
}
