import Dispatch
import HTTPTypes
import Hummingbird
import Logging

/// How a listener turns what escaped its routes (404, 405, 413, broken framing, a bug) into an answer.
protocol ErrorRenderer: Sendable {
    func response(for error: any Error, to request: Request, logger: Logger) -> Response
}

/// Everything every request gets, in one pass and one stack frame: its request id, CORS, an answer in the right
/// shape for whatever escaped the routes, `nosniff`, the `client-request-id` echo, its metrics and its log line.
/// One middleware rather than five, because each middleware is a frame that every request pays for in time and
/// every connection's task keeps in stack memory while it idles.
struct EdgeMiddleware<Errors: ErrorRenderer>: RouterMiddleware {
    typealias Context = LatchkeyRequestContext
    let errors: Errors
    let cors: AllowListCORS?
    let metrics = RouteMetrics()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let active = metrics.started(request.method)
        // The client's `client-request-id` when it is a UUID (MSAL sends one), else Hummingbird's id for the request.
        let echoed = request.headers[.clientRequestId].flatMap { UUIDString.isValid($0) ? $0 : nil }
        var context = context
        context.logger[metadataKey: "request_id"] = .string(echoed ?? context.id)
        var thrown = false
        func answer(_ request: Request, _ context: Context) async -> Response {
            do {
                return try await next(request, context)
            } catch {
                thrown = true
                return errors.response(for: error, to: request, logger: context.logger)
            }
        }
        var response: Response
        if let cors { response = try await cors.handle(request, context: context, next: answer) } else { response = await answer(request, context) }
        if let echoed { response.headers[.clientRequestId] = echoed }
        response.headers[.xContentTypeOptions] = "nosniff"
        let elapsed = DispatchTime.now().uptimeNanoseconds &- start
        let route = context.endpointPath ?? "(unmatched)"
        metrics.finished(route: route, method: request.method, status: response.status, nanoseconds: elapsed, thrown: thrown, active: active)
        if context.logger.logLevel <= .info {
            context.logger.info("request", metadata: [
                "method": .string(request.method.rawValue), "route": .string(route),
                "status": .stringConvertible(response.status.code), "duration_ms": .string(Self.milliseconds(elapsed)),
            ])
        }
        return response
    }

    /// `0.25` for 250 µs: two decimals, without Foundation's formatter.
    static func milliseconds(_ nanoseconds: UInt64) -> String {
        let hundredths = nanoseconds / 10_000
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
