import HTTPTypes
import Hummingbird
import LatchkeyCore
import Logging
import NIOHTTP1

/// The public listener's errors: what escaped a route answers in the path's surface (`Surface`). HTTP errors keep
/// their status (404, 405 with its `Allow`, 413, ...), broken body framing is the client's 400, anything unexpected
/// a 500 and a log line.
struct PathDialectErrors: ErrorRenderer {
    let answers: SurfaceAnswers
    let appServicesErrors: AppServicesError
    let routes: RouteTable
    /// Where the admin listener is (nil: it is off), for an admin path asked of the public listener.
    var adminURL: String?

    func response(for error: any Error, to request: Request, logger: Logger) -> Response {
        let path = request.uri.path, surface = answers.surface(of: path)
        if let error = error as? HTTPError, error.status == .notFound, surface == .native, Self.isAdminPath(path) {
            let message = adminURL.map { "The admin API and the console are not served on the public port: they are on the admin listener, \($0) (admin.listen)." }
                ?? "The admin API and the console are not served on the public port, and the admin listener is off (admin.listen is \"\")."
            var answer = answers.answer(.admin, .notFound, message)
            answer.headers[.cacheControl] = "no-store"
            return answer.response
        }
        if let error = error as? HTTPError, error.status == .notFound, let allow = routes.allowHeader(path: path, method: request.method) {
            var answer = answers.answer(surface, .methodNotAllowed, "\(request.method) is not served at \(path).")
            answer.headers[.allow] = allow
            answer.headers[.cacheControl] = "no-store"
            return answer.response
        }
        return response(for: error, surface: surface, logger: logger)
    }

    func response(for error: any Error, surface: Surface, logger: Logger) -> Response {
        switch error {
        case let error as HTTPResponseError:
            let message = (error as? HTTPError)?.body ?? error.status.reasonPhrase
            var answer = answers.answer(surface, error.status, message)
            if error.status == .methodNotAllowed || error.status == .notFound { answer.headers[.cacheControl] = "no-store" }
            return answer.response
        case let error as UnsupportedMediaType:
            return answers.answer(surface, .unsupportedMediaType, error.message).response
        case is MalformedRequest:
            // A form with an undecodable escape or a field sent twice (the hosted pages have no dialect middleware).
            return answers.answer(surface, .badRequest, "The form could not be read. Go back and try again.").response
        case is HTTPParserError:
            // Bad chunk sizes, unknown transfer codings, a body cut short: the client's mistake.
            return answers.answer(surface, .badRequest, Self.framing).response
        case let error as LatchkeyError:
            switch surface {
            case .native, .oauth, .admin: return NativeAuthError.response(for: error)
            case .appServices: return appServicesErrors.response(for: error, appId: nil)
            case .pages, .console:
                let status = PageStatus.of(error)
                var answer = answers.answer(surface, status, Self.pageMessage(status))
                if let seconds = error.errorClass.retryAfterSeconds { answer.headers[.retryAfter] = String(seconds) }
                return answer.response
            case .parse: return ParseError(error).response
            }
        default:
            logger.error("unhandled error", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            return answers.answer(surface, .internalServerError, "The server could not complete the request.").response
        }
    }

    static let framing = "The request body is not valid HTTP/1.1 framing."

    /// The admin listener's own paths, which operators sometimes try on the public port.
    static func isAdminPath(_ raw: String) -> Bool {
        let path = SurfacePath.normalized(raw)
        return ["/admin", "/console", "/metrics"].contains { SurfacePath.path(path, isUnder: $0) }
    }

    /// What a page says for a refusal no route explained, by its status.
    static func pageMessage(_ status: HTTPResponse.Status) -> String {
        switch status {
        case .tooManyRequests: "Too many attempts. Try again in a few minutes."
        case .serviceUnavailable: "The server is busy. Try again in a moment."
        case .internalServerError: "The server could not complete the request."
        default: "The request could not be understood."
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
