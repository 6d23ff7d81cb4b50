import HTTPTypes
import Hummingbird
import LatchkeyCore
import Logging
import NIOHTTP1

/// The admin API's errors: `{"error": code, "error_description": text}` with the matching status.
enum AdminAPIError: Error {
    case off, unauthorized
    case badRequest(String)
    case conflict(String, String)
}

/// The admin listener's errors, in the admin API's JSON shape, for every path (an unknown one included).
struct AdminErrors: ErrorRenderer {
    let routes: RouteTable
    /// The console's pages answer its own paths' errors.
    var console: ConsoleErrors?

    func response(for error: any Error, to request: Request, logger: Logger) -> Response {
        if let console, ConsoleErrors.handles(request) { return console.response(for: error, to: request, logger: logger) }
        if let failure = AdminFailure(error) { return Self.answer(failure.status, failure.code, failure.description, headers: failure.headers) }
        switch error {
        case let error as AdminAPIError:
            switch error {
            case .off:
                return Self.answer(.serviceUnavailable, "admin_api_off", "The admin API is off: set admin.token_file to turn it on.")
            case .unauthorized:
                return Self.answer(.unauthorized, "unauthorized", "Authorization: Bearer <admin token> is missing or wrong.",
                                   headers: [.wwwAuthenticate: "Bearer realm=\"latchkey-admin\""])
            case .badRequest(let message):
                return Self.answer(.badRequest, "invalid_request", message)
            case .conflict(let code, let message):
                return Self.answer(.conflict, code, message)
            }
        case let error as MalformedRequest:
            let what = error.expected.map { "\(error.what) must be \($0)" } ?? "the body must be a JSON object of the operation's fields"
            return Self.answer(.badRequest, "invalid_request", what)
        case let error as UnsupportedMediaType:
            return Self.answer(.unsupportedMediaType, "invalid_request", error.message)
        case let error as HTTPError:
            if error.status == .notFound, let allow = routes.allowHeader(path: request.uri.path, method: request.method) {
                return Self.answer(.methodNotAllowed, "invalid_request", "\(request.method) is not served at \(request.uri.path).",
                                   headers: [.allow: allow])
            }
            return Self.answer(error.status, error.status == .notFound ? "not_found" : "invalid_request", error.body ?? error.status.reasonPhrase)
        case let error as HTTPResponseError:
            return Self.answer(error.status, error.status.code >= 500 ? "server_error" : "invalid_request", error.status.reasonPhrase)
        case is HTTPParserError:
            return Self.answer(.badRequest, "invalid_request", "The request body is not valid HTTP/1.1 framing.")
        default:
            logger.error("unhandled error", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            return Self.answer(.internalServerError, "server_error", "The server could not complete the request.")
        }
    }

    static func answer(_ status: HTTPResponse.Status, _ code: String, _ description: String, headers: HTTPFields = [:]) -> Response {
        JSONResponse.make(status, ["error": .string(code), "error_description": .string(description)], headers: headers)
    }
}
