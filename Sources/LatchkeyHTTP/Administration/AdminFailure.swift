import HTTPTypes
import LatchkeyCore

/// What an engine error means to an operator, whichever way they asked (the admin API's JSON, the console's pages):
/// the status, a stable code and a sentence naming the cause.
struct AdminFailure: Sendable {
    var status: HTTPResponse.Status
    var code: String
    var description: String

    init?(_ error: any Error) {
        guard let (status, code, description) = Self.meaning(error) else { return nil }
        self.status = status; self.code = code; self.description = description
    }

    private static func meaning(_ error: any Error) -> (HTTPResponse.Status, String, String)? {
        switch error {
        case let error as LatchkeyEngine.AdminError:
            switch error {
            case .userNotFound: return (.notFound, "user_not_found", "No user has that id, objectId, email or username.")
            case .userPending: return (.conflict, "user_pending", "The account has not finished signing up.")
            case .identityNotFound: return (.notFound, "identity_not_found", "The user has no identity of that provider.")
            case .passkeyNotFound: return (.notFound, "passkey_not_found", "The user has no passkey with that id.")
            case .browserSessionNotFound:
                return (.notFound, "session_not_found", "The user has no live browser session with that id.")
            case .consentNotFound: return (.notFound, "consent_not_found", "The user gave that client no consent.")
            case .clientNotFound: return (.notFound, "client_not_found", "No client has that id.")
            case .clientInConfiguration:
                return (.conflict, "client_in_configuration", "That client is in the configuration file: change it there.")
            case .invalidClient(let reason): return (.badRequest, "invalid_request", reason)
            }
        case LatchkeyError.lastWayIn:
            return (.conflict, "last_way_in", "That identity is the account's last way to sign in; it stays.")
        case LatchkeyError.apiKeyNotFound:
            return (.notFound, "api_key_not_found", "No API key has that id.")
        case LatchkeyError.apiKeyRefused(let reason):
            return (.badRequest, "invalid_request", reason)
        case LatchkeyError.unknownClient:
            return (.notFound, "app_not_found", "No App Services app has that id.")
        case OperatorService.KeyRevocationError.unknownKey:
            return (.notFound, "key_not_found", "No signing key has that kid (see GET /admin/v1/keys).")
        case let error as LatchkeyError where error == .storeFailure:
            return (.serviceUnavailable, "store_unavailable", "The database did not answer; try again.")
        case let error as OperatorService.RecoveryRefusal:
            switch error {
            case .noEmail: return (.conflict, "no_email", "The account has no email address to mail a link to.")
            case .disabled: return (.conflict, "user_disabled", "The account is disabled: enable it before mailing it a reset link.")
            }
        case CustomUserData.Refusal.tooLarge(let bytes):
            return (.badRequest, "custom_data_too_large", "The document is \(bytes) bytes as stored; custom user data holds at most \(CustomUserData.maxBytes).")
        case CustomUserData.Refusal.unknownApp(let app):
            return (.notFound, "app_not_found", "No App Services app \(app) is configured (app_services.apps).")
        case OperatorService.RoleRefusal.unknownRole(let role):
            return (.badRequest, "unknown_role", "There is no role \(role): the roles are \(UserRole.known.joined(separator: ", ")).")
        default: return nil
        }
    }
}
