import HTTPTypes
import Hummingbird
import LatchkeyCore
import Logging

/// Turns what escapes a route into JSON: HTTP errors keep their status (404, 405, 413, ...), anything
/// unexpected becomes a generic 500 and a log line. Also echoes `client-request-id` and sets nosniff.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = LatchkeyRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPResponseError {
            // Router and body-limit errors (404, 405, 413, ...) keep their status but speak JSON.
            let status = error.status
            let code = status.code == 413 ? "request_too_large" : status.code == 404 ? "not_found" : "invalid_request"
            let message = (error as? HTTPError)?.body ?? status.reasonPhrase
            response = JSONResponse.make(status, ["error": .string(code), "error_description": .string(message)])
        } catch {
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            response = JSONResponse.make(.internalServerError, ["error": "server_error",
                                                                "error_description": "The server could not complete the request."])
        }
        if let id = request.headers[.clientRequestId], UUIDString.isValid(id) {
            response.headers[.clientRequestId] = id
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }
}

enum UUIDString {
    static func isValid(_ s: String) -> Bool { s.count == 36 && s.allSatisfy { $0.isHexDigit || $0 == "-" } }
}

extension HTTPField.Name {
    static let clientRequestId = HTTPField.Name("client-request-id")!
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
