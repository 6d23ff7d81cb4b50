import Hummingbird
import LatchkeyCore

/// Every admin call needs `Authorization: Bearer <admin.token_file>`. The compare runs over SHA-256 digests in
/// constant time, so neither the token's bytes nor its length leak through timing.
struct AdminTokenMiddleware: RouterMiddleware {
    typealias Context = LatchkeyRequestContext
    let expected: [UInt8]?

    init(token: String?) { expected = token.map { Digest.sha256(Array($0.utf8)) } }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let expected else { throw AdminAPIError.off }
        guard let presented = BearerToken.read(request),
              Digest.constantTimeEqual(Digest.sha256(Array(presented.utf8)), expected) else { throw AdminAPIError.unauthorized }
        return try await next(request, context)
    }
}
