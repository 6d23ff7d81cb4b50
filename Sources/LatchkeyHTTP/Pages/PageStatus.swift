import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The one status every hosted page answers an engine refusal with, from its class (`ErrorClass`): the sign-in pages,
/// the account page and the mailed-link pages alike. A refusal the person can fix (every client class) is 400 with
/// the page saying why in their words: a browser shows a page whatever its status, and a 401 would need a challenge
/// no form can answer. A lock or a quota is 429, a full queue or an unreachable issuer 503, each with `Retry-After`;
/// a store failure 500.
enum PageStatus {
    static func of(_ error: LatchkeyError) -> HTTPResponse.Status {
        let errorClass = error.errorClass
        return switch errorClass {
        case .throttled, .unavailable, .internal: HTTPResponse.Status(code: errorClass.httpStatus)
        case .invalid, .unauthenticated, .forbidden, .notFound, .conflict: .badRequest
        }
    }

    /// A page rendered for `error`, with the status and the `Retry-After` its class gives.
    static func answer(_ page: Response, for error: LatchkeyError) -> Response {
        var page = page
        page.status = of(error)
        if let seconds = error.errorClass.retryAfterSeconds { page.headers[.retryAfter] = String(seconds) }
        return page
    }
}
