import HTTPTypes
import Hummingbird
import NIOCore

/// CORS for browser apps on the configured origins only; other origins get no CORS headers at all.
struct AllowListCORSMiddleware: RouterMiddleware {
    typealias Context = LatchkeyRequestContext
    let origins: Set<String>

    init(origins: [String]) { self.origins = Set(origins) }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], origins.contains(origin) else { return try await next(request, context) }
        let cors = CORSMiddleware<Context>(allowOrigin: .custom(origin),
                                           allowHeaders: [.contentType, .accept, .authorization, .clientRequestId],
                                           allowMethods: [.get, .post, .options], exposedHeaders: ["client-request-id", "Retry-After"],
                                           maxAge: .seconds(600))
        return try await cors.handle(request, context: context, next: next)
    }
}
