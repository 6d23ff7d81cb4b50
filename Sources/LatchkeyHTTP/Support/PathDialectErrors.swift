import HTTPTypes
import Hummingbird
import LatchkeyCore
import Logging
import NIOHTTP1

/// The public listener's errors: what escaped a route answers in the path's dialect. HTTP errors keep their status
/// (404, 405 with its `Allow`, 413, ...), broken body framing is the client's 400, anything unexpected a 500 and a
/// log line.
struct PathDialectErrors: ErrorRenderer {
    let pages: HTMLPages
    let appServicesErrors: AppServicesError
    let parseMount: String?
    let routes: RouteTable

    func response(for error: any Error, to request: Request, logger: Logger) -> Response {
        let path = request.uri.path, dialect = Dialect(path: path, parseMount: parseMount)
        if let error = error as? HTTPError, error.status == .notFound, let allow = routes.allowHeader(path: path, method: request.method) {
            var response = dialect.response(status: .methodNotAllowed, message: "\(request.method) is not served at \(path).", pages: pages)
            response.headers[.allow] = allow
            response.headers[.cacheControl] = "no-store"
            return response
        }
        return response(for: error, dialect: dialect, logger: logger)
    }

    func response(for error: any Error, dialect: Dialect, logger: Logger) -> Response {
        switch error {
        case let error as HTTPResponseError:
            let message = (error as? HTTPError)?.body ?? error.status.reasonPhrase
            var response = dialect.response(status: error.status, message: message, pages: pages)
            if error.status == .methodNotAllowed || error.status == .notFound { response.headers[.cacheControl] = "no-store" }
            return response
        case let error as UnsupportedMediaType:
            return dialect.response(status: .unsupportedMediaType, message: error.message, pages: pages)
        case is MalformedRequest:
            // A form with an undecodable escape or a field sent twice (the hosted pages have no dialect middleware).
            return dialect.response(status: .badRequest, message: "The form could not be read. Go back and try again.", pages: pages)
        case is HTTPParserError:
            // Bad chunk sizes, unknown transfer codings, a body cut short: the client's mistake.
            return dialect.response(status: .badRequest, message: "The request body is not valid HTTP/1.1 framing.", pages: pages)
        case let error as LatchkeyError:
            switch dialect {
            case .native: return NativeAuthError.response(for: error)
            case .appServices: return appServicesErrors.response(for: error, appId: nil)
            case .pages: return dialect.response(status: .badRequest, message: "The request could not be understood.", pages: pages)
            case .parse: return ParseError(error).response
            }
        default:
            logger.error("unhandled error", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            return dialect.response(status: .internalServerError, message: "The server could not complete the request.", pages: pages)
        }
    }
}

enum UUIDString {
    static func isValid(_ s: String) -> Bool { s.count == 36 && s.allSatisfy { $0.isHexDigit || $0 == "-" } }
}

extension HTTPField.Name {
    static let clientRequestId = HTTPField.Name("client-request-id")!
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
