import HTTPTypes
import Hummingbird
import NIOCore

/// CORS for browser apps on the configured origins only; other origins get no CORS headers at all.
/// Hummingbird's CORSMiddleware answers the preflight; this adds what it leaves out: the expose list on the
/// actual answers, so pages can read `client-request-id` and `Retry-After`. Called by `EdgeMiddleware` around the
/// error answers too, so a refused request still tells the page why.
struct AllowListCORS: Sendable {
    typealias Context = LatchkeyRequestContext
    let origins: Set<String>

    /// What MSAL.js's native-auth client sends on every call besides the standard headers.
    static let allowedHeaders: [HTTPField.Name] = [.contentType, .accept, .authorization, .clientRequestId] + [
        "x-client-SKU", "x-client-VER", "x-client-OS", "x-client-CPU", "x-client-current-telemetry",
        "x-client-last-telemetry", "x-ms-lib-capability", "return-client-request-id",
    ].map { HTTPField.Name($0)! }
    static let exposedHeaders = ["client-request-id", "Retry-After", "WWW-Authenticate"]

    /// Only reached for a listed origin, so answering with the request's origin is answering with a listed one.
    let cors = CORSMiddleware<LatchkeyRequestContext>(
        allowOrigin: CORSMiddleware<LatchkeyRequestContext>.AllowOriginExtended.originBased, allowHeaders: Self.allowedHeaders,
        allowMethods: [.get, .post, .delete, .options], exposedHeaders: Self.exposedHeaders, maxAge: .seconds(600))

    init(origins: [String]) { self.origins = Set(origins) }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], origins.contains(origin) else { return try await next(request, context) }
        var response = try await cors.handle(request, context: context, next: next)
        if request.method != .options {
            response.headers[.accessControlExposeHeaders] = Self.exposedHeaders.joined(separator: ", ")
        }
        return response
    }
}
