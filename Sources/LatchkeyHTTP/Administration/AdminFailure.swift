import HTTPTypes
import LatchkeyCore

/// What an engine error means to an operator, whichever way they asked (the admin API's JSON, the console's pages):
/// the status its class has (`ErrorClass`), `Retry-After` when the class carries a delay, a stable code and a
/// sentence naming the cause.
struct AdminFailure: Sendable {
    var status: HTTPResponse.Status
    var code: String
    var description: String
    var headers: HTTPFields = [:]

    init?(_ error: any Error) {
        guard let classified = error as? any ClassifiedError, let (code, description) = Self.meaning(error) else { return nil }
        let errorClass = classified.errorClass
        self.status = HTTPResponse.Status(code: errorClass.httpStatus); self.code = code; self.description = description
        if let seconds = errorClass.retryAfterSeconds { headers[.retryAfter] = String(seconds) }
    }

    private static func meaning(_ error: any Error) -> (String, String)? {
        switch error {
        case let error as LatchkeyEngine.AdminError:
            switch error {
            case .userNotFound: return ("user_not_found", "No user has that id, objectId, email or username.")
            case .userPending: return ("user_pending", "The account has not finished signing up.")
            case .identityNotFound: return ("identity_not_found", "The user has no identity of that provider.")
            case .passkeyNotFound: return ("passkey_not_found", "The user has no passkey with that id.")
            case .browserSessionNotFound: return ("session_not_found", "The user has no live browser session with that id.")
            case .consentNotFound: return ("consent_not_found", "The user gave that client no consent.")
            case .clientNotFound: return ("client_not_found", "No client has that id.")
            case .clientInConfiguration: return ("client_in_configuration", "That client is in the configuration file: change it there.")
            case .invalidClient(let reason): return ("invalid_request", reason)
            }
        case let error as LatchkeyError: return meaning(error)
        case OperatorService.KeyRevocationError.unknownKey:
            return ("key_not_found", "No signing key has that kid (see GET /admin/v1/keys).")
        case let error as OperatorService.RecoveryRefusal:
            switch error {
            case .noEmail: return ("no_email", "The account has no email address to mail a link to.")
            case .disabled: return ("user_disabled", "The account is disabled: enable it before mailing it a reset link.")
            }
        case CustomUserData.Refusal.tooLarge(let bytes):
            return ("custom_data_too_large", "The document is \(bytes) bytes as stored; custom user data holds at most \(CustomUserData.maxBytes).")
        case CustomUserData.Refusal.unknownApp(let app):
            return ("app_not_found", "No App Services app \(app) is configured (app_services.apps).")
        case OperatorService.RoleRefusal.unknownRole(let role):
            return ("unknown_role", "There is no role \(role): the roles are \(UserRole.known.joined(separator: ", ")).")
        default: return nil
        }
    }

    /// An engine refusal an operator's call met: the ones operators cause by name, the rest by their reason and class.
    private static func meaning(_ error: LatchkeyError) -> (String, String) {
        switch error {
        case .lastWayIn: ("last_way_in", "That identity is the account's last way to sign in; it stays.")
        case .apiKeyNotFound: ("api_key_not_found", "No API key has that id.")
        case .apiKeyRefused(let reason): ("invalid_request", reason)
        case .unknownClient: ("app_not_found", "No App Services app has that id.")
        case .storeFailure: ("store_unavailable", "The database did not answer; nothing was written. Try again.")
        case .rateLimited(let seconds, let limit):
            ("rate_limited", "Too many \(limit.counts) (limits.\(limit.rawValue)); retry in \(seconds) seconds.")
        case .accountLocked(let seconds): ("account_locked", "The account is locked after wrong attempts for \(seconds) more seconds.")
        case .serverBusy(let seconds): ("server_busy", "The server is busy; retry in \(seconds) seconds.")
        default: (error.reason.rawValue, "The request was refused: \(error.reason.words).")
        }
    }
}
