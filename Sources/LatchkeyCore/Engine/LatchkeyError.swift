/// Why a password was refused by the policy; each dialect names these in its own words.
public enum PasswordProblem: String, Sendable, Equatable {
    case tooShort, tooLong, tooWeak, banned, recentlyUsed
}

/// Every way an engine call can fail. Dialects map these cases, and only these, to their wire errors.
public enum LatchkeyError: Error, Sendable, Equatable {
    case unknownClient
    case missingParameter(String)
    case invalidParameter(String)
    case invalidUsername
    case unsupportedChallengeType
    case userAlreadyExists
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
    case rateLimited(retryAfterSeconds: Int)
    // App Services dialect (email/password provider, link tokens, sessions).
    case unknownApp
    /// A token/tokenId pair that is not even well-formed.
    case linkTokenMalformed
    /// Well-formed but unknown, used, expired, or for another purpose.
    case linkTokenInvalid
    case userAlreadyConfirmed
    case userPendingConfirmation
    case sessionInvalid
    /// The app resets passwords through a function, not by mail.
    case resetRequiresFunction
    /// The confirmation function answered `fail` (or failed): no account was created / it stays pending.
    case confirmationFailed(email: String)
    /// The reset function answered `fail` (or failed).
    case resetFailed(email: String)
    /// `confirm/call` on an app that does not confirm by function.
    case noConfirmationFunction(autoConfirm: Bool, email: String)
    /// `reset/call` on an app that does not reset by function.
    case noResetFunction(email: String)
    /// The store failed; nothing was written. Details go to the log only.
    case storeFailure
}
