import Foundation

/// The reason an engine refusal names, as a value: surfaces with no code of their own for a case (the admin API,
/// the console, the edge) answer it, logs record it, and the error-class agreement test walks every one.
extension LatchkeyError {
    public enum Reason: String, Sendable, CaseIterable {
        case unknownClient = "unknown_client", missing = "missing_parameter", invalidEmail = "invalid_email"
        case invalidUsername = "invalid_username", unsupportedChallengeType = "unsupported_challenge_type"
        case emailTaken = "email_taken", usernameTaken = "username_taken", userNotFound = "user_not_found"
        case userHasNoPassword = "no_password", passwordRejected = "password_rejected"
        case invalidAttributes = "invalid_attributes", invalidCode = "invalid_code", invalidCredentials = "invalid_credentials"
        case flowTokenInvalid = "flow_token_invalid", flowTokenExpired = "flow_token_expired", flowStepMismatch = "flow_step_mismatch"
        case refreshTokenInvalid = "refresh_token_invalid", invalidScope = "invalid_scope", accessTokenInvalid = "access_token_invalid"
        case serverBusy = "server_busy", rateLimited = "rate_limited", accountLocked = "account_locked"
        case linkTokenMalformed = "link_token_malformed", linkTokenInvalid = "link_token_invalid"
        case userAlreadyConfirmed = "already_confirmed", userPendingConfirmation = "pending_confirmation"
        case sessionInvalid = "session_invalid", sessionExpired = "session_expired", invalidFieldName = "invalid_field_name"
        case fieldsOverLimit = "fields_over_limit", fieldTypeMismatch = "field_type_mismatch", objectNotFound = "object_not_found"
        case notPermitted = "not_permitted", fieldNotWritable = "field_not_writable", unknownFunction = "unknown_function"
        case functionFailed = "function_failed", recoveryNotByMail = "recovery_not_by_mail"
        case verificationFunctionRefused = "verification_refused", recoveryFunctionRefused = "recovery_refused"
        case noVerificationFunction = "no_verification_function", noRecoveryFunction = "no_recovery_function"
        case storeFailure = "store_failure", providerNotEnabled = "provider_not_enabled", identityRefused = "identity_refused"
        case identityProviderUnavailable = "identity_provider_unavailable", identityTaken = "identity_taken"
        case providerAlreadyLinked = "provider_already_linked", linkRefused = "link_refused", apiKeyNotFound = "api_key_not_found"
        case apiKeyRefused = "api_key_refused", passkeyRefused = "passkey_refused", lastWayIn = "last_way_in"
        case secondFactorRequired = "second_factor_required", secondFactorInvalid = "second_factor_invalid"
        case secondFactor = "second_factor_refused", openID = "oauth_refused"

        /// The reason as words, for an answer that has nothing more particular to say.
        public var words: String { rawValue.replacingOccurrences(of: "_", with: " ") }
    }

    public var reason: Reason {
        switch self {
        case .unknownClient: .unknownClient
        case .missing: .missing
        case .invalidEmail: .invalidEmail
        case .invalidUsername: .invalidUsername
        case .unsupportedChallengeType: .unsupportedChallengeType
        case .emailTaken: .emailTaken
        case .usernameTaken: .usernameTaken
        case .userNotFound: .userNotFound
        case .userHasNoPassword: .userHasNoPassword
        case .passwordRejected: .passwordRejected
        case .invalidAttributes: .invalidAttributes
        case .invalidCode: .invalidCode
        case .invalidCredentials: .invalidCredentials
        case .flowTokenInvalid: .flowTokenInvalid
        case .flowTokenExpired: .flowTokenExpired
        case .flowStepMismatch: .flowStepMismatch
        case .refreshTokenInvalid: .refreshTokenInvalid
        case .invalidScope: .invalidScope
        case .accessTokenInvalid: .accessTokenInvalid
        case .serverBusy: .serverBusy
        case .rateLimited: .rateLimited
        case .accountLocked: .accountLocked
        case .linkTokenMalformed: .linkTokenMalformed
        case .linkTokenInvalid: .linkTokenInvalid
        case .userAlreadyConfirmed: .userAlreadyConfirmed
        case .userPendingConfirmation: .userPendingConfirmation
        case .sessionInvalid: .sessionInvalid
        case .sessionExpired: .sessionExpired
        case .invalidFieldName: .invalidFieldName
        case .fieldsOverLimit: .fieldsOverLimit
        case .fieldTypeMismatch: .fieldTypeMismatch
        case .objectNotFound: .objectNotFound
        case .notPermitted: .notPermitted
        case .fieldNotWritable: .fieldNotWritable
        case .unknownFunction: .unknownFunction
        case .functionFailed: .functionFailed
        case .recoveryNotByMail: .recoveryNotByMail
        case .verificationFunctionRefused: .verificationFunctionRefused
        case .recoveryFunctionRefused: .recoveryFunctionRefused
        case .noVerificationFunction: .noVerificationFunction
        case .noRecoveryFunction: .noRecoveryFunction
        case .storeFailure: .storeFailure
        case .providerNotEnabled: .providerNotEnabled
        case .identityRefused: .identityRefused
        case .identityProviderUnavailable: .identityProviderUnavailable
        case .identityTaken: .identityTaken
        case .providerAlreadyLinked: .providerAlreadyLinked
        case .linkRefused: .linkRefused
        case .apiKeyNotFound: .apiKeyNotFound
        case .apiKeyRefused: .apiKeyRefused
        case .passkeyRefused: .passkeyRefused
        case .lastWayIn: .lastWayIn
        case .secondFactorRequired: .secondFactorRequired
        case .secondFactorInvalid: .secondFactorInvalid
        case .secondFactor: .secondFactor
        case .openID: .openID
        }
    }
}
