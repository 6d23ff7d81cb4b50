import HTTPTypes
import Hummingbird
import LatchkeyCore
import Logging
import NIOHTTP1

/// The admin API's errors: `{"error": code, "error_description": text}` with the matching status.
enum AdminAPIError: Error {
    case off, unauthorized
    case badRequest(String)
}

/// The admin listener's errors, in the admin API's JSON shape, for every path (an unknown one included).
struct AdminErrors: ErrorRenderer {
    let routes: RouteTable

    func response(for error: any Error, to request: Request, logger: Logger) -> Response {
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
            }
        case let error as LatchkeyEngine.AdminError:
            switch error {
            case .userNotFound: return Self.answer(.notFound, "user_not_found", "No user has that id, objectId, email or username.")
            case .userPending: return Self.answer(.conflict, "user_pending", "The account has not finished signing up.")
            case .identityNotFound: return Self.answer(.notFound, "identity_not_found", "The user has no identity of that provider.")
            case .browserSessionNotFound:
                return Self.answer(.notFound, "session_not_found", "The user has no live browser session with that id.")
            case .consentNotFound: return Self.answer(.notFound, "consent_not_found", "The user gave that client no consent.")
            case .clientNotFound: return Self.answer(.notFound, "client_not_found", "No client has that id.")
            case .clientInConfiguration:
                return Self.answer(.conflict, "client_in_configuration", "That client is in the configuration file: change it there.")
            case .invalidClient(let reason): return Self.answer(.badRequest, "invalid_request", reason)
            }
        case LatchkeyError.lastWayIn:
            return Self.answer(.conflict, "last_way_in", "That identity is the account's last way to sign in; it stays.")
        case LatchkeyError.apiKeyNotFound:
            return Self.answer(.notFound, "api_key_not_found", "No API key has that id.")
        case LatchkeyError.apiKeyRefused(let reason):
            return Self.answer(.badRequest, "invalid_request", reason)
        case LatchkeyError.unknownClient:
            return Self.answer(.notFound, "app_not_found", "No App Services app has that id.")
        case let error as MalformedRequest:
            let what = error.expected.map { "\(error.what) must be \($0)" } ?? "the body must be a JSON object of the operation's fields"
            return Self.answer(.badRequest, "invalid_request", what)
        case let error as UnsupportedMediaType:
            return Self.answer(.unsupportedMediaType, "invalid_request", error.message)
        case LatchkeyEngine.KeyRevocationError.unknownKey:
            return Self.answer(.notFound, "key_not_found", "No signing key has that kid (see GET /admin/v1/keys).")
        case let error as LatchkeyError where error == .storeFailure:
            return Self.answer(.serviceUnavailable, "store_unavailable", "The database did not answer; try again.")
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
