import HTTPTypes
import Hummingbird
import LatchkeyCore

/// Which wire protocol a path belongs to, so that errors raised before a route runs (404, 405, 413, broken
/// framing) still answer in that protocol's own shape.
enum Dialect {
    case native, appServices, pages, parse

    static let appServicesPrefix = "/api/client/v2.0"
    /// The hosted pages and anything below them answer in HTML.
    static let pagePaths = ["/confirm", "/reset-password", "/ui", "/oauth2/v2.0/logout"]

    /// `parseMount` is nil when no Parse app is configured (then nothing is mounted there).
    init(path raw: String, parseMount: String?) {
        // Matrix parameters (`/confirm;x=1`) and an encoded form of the path belong to the path they decorate.
        let bare = raw.prefix { $0 != ";" }
        let path = String(bare).removingPercentEncoding ?? String(bare)
        if let parseMount, path.hasPrefix(parseMount + "/apps/") { self = .pages }
        else if let parseMount, path == parseMount || path.hasPrefix(parseMount + "/") { self = .parse }
        else if path.hasPrefix(Self.appServicesPrefix) { self = .appServices }
        else if Self.pagePaths.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) { self = .pages }
        else if path.hasSuffix("/oauth2/v2.0/authorize") { self = .pages }  // a browser's, also under a tenant
        else { self = .native }
    }

    /// An error that no route turned into a response, in this dialect's shape.
    func response(status: HTTPResponse.Status, message: String, pages: HTMLPages) -> Response {
        switch self {
        case .native:
            let code = status == .contentTooLarge ? "request_too_large" : status == .notFound ? "not_found"
                : status.code >= 500 ? "server_error" : "invalid_request"
            return JSONResponse.make(status, ["error": .string(code), "error_description": .string(message)])
        case .appServices:
            let code = status == .notFound ? "NotFound" : status.code >= 500 ? "InternalServerError" : "BadRequest"
            return AppServicesError.body(status, code, message)
        case .pages:
            return pages.error(status, message: message)
        case .parse:
            let error = status == .contentTooLarge ? ParseError(116, "The object is too large.", status: status)
                : status.code >= 500 ? ParseError(1, "Internal server error.", status: status)
                : status == .notFound || status == .methodNotAllowed ? ParseError(107, "cannot route", status: status)
                : ParseError(107, "Invalid JSON.", status: status)
            return error.response
        }
    }
}
