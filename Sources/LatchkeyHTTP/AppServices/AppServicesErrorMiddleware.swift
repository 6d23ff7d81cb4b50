import Hummingbird
import LatchkeyCore

/// The App Services dialect's one error mapping, for every route under its prefix.
struct AppServicesErrorMiddleware: RouterMiddleware {
    typealias Context = LatchkeyRequestContext
    let errors: AppServicesError

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as LatchkeyError {
            return errors.response(for: error, appId: context.parameters.get("app"))
        } catch let error as MalformedRequest {
            if let expected = error.expected {
                return AppServicesError.body(.badRequest, "BadRequest", "\(error.what) must be \(expected)")
            }
            return AppServicesError.body(.badRequest, "BadRequest", "request body must be a JSON object of the provider's fields")
        } catch let error as HTTPResponseError where error.status == .contentTooLarge {
            return AppServicesError.body(.contentTooLarge, "BadRequest", "request body too large")
        }
    }
}
