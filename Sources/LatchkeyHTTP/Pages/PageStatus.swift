import HTTPTypes
import LatchkeyCore

/// The one status every hosted page answers an engine refusal with: the sign-in pages and the mailed-link pages alike
/// (a lock or a quota is 429, a full hashing queue or an unreachable issuer 503, a store failure 500, the rest 400).
enum PageStatus {
    static func of(_ error: LatchkeyError) -> HTTPResponse.Status {
        switch error {
        case .rateLimited, .accountLocked: .tooManyRequests
        case .serverBusy, .identityProviderUnavailable: .serviceUnavailable
        case .storeFailure: .internalServerError
        default: .badRequest
        }
    }
}
