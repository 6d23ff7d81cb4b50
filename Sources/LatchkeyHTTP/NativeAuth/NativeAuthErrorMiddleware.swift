import Hummingbird
import LatchkeyCore

/// The native API's one error mapping: what an endpoint throws becomes that dialect's error body. Anything else
/// (413, broken framing) goes on to the server-wide `ErrorMiddleware`.
struct NativeAuthErrorMiddleware: RouterMiddleware {
    typealias Context = LatchkeyRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as LatchkeyError {
            return NativeAuthError.response(for: error)
        } catch let error as MalformedRequest {
            return NativeAuthError.malformed(error.what)
        }
    }
}
