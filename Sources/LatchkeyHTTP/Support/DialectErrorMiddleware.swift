import Hummingbird
import LatchkeyCore

/// How one dialect answers what its routes throw (engine errors, bodies it could not read, 413): each dialect
/// implements it once (`NativeAuthErrors`, `AppServicesError`, `ParseErrors`). Nil leaves the error to the edge's
/// renderer, which answers what escapes every route.
protocol DialectErrors: Sendable {
    func response(for error: any Error, context: LatchkeyRequestContext) -> Response?
}

/// The one error middleware: put on a dialect's route group, it answers in that group's dialect.
struct DialectErrorMiddleware<Errors: DialectErrors>: RouterMiddleware {
    typealias Context = LatchkeyRequestContext
    let errors: Errors

    init(_ errors: Errors) { self.errors = errors }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            guard let response = errors.response(for: error, context: context) else { throw error }
            return response
        }
    }
}
