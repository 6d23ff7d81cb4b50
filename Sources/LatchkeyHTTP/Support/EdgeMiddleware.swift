import Dispatch
import HTTPTypes
import Hummingbird
import Logging

/// How a listener turns what escaped its routes (404, 405, 413, broken framing, a bug) into an answer.
protocol ErrorRenderer: Sendable {
    func response(for error: any Error, to request: Request, logger: Logger) -> Response
}

/// What the one log line of a request says. The executable writes it straight to its log writer, in the configured
/// format, as if logged at `info` with this metadata: going through swift-log's metadata dictionaries (build, merge,
/// sort) cost more than the rest of the line, and this line is written for every request.
public struct RequestLogEntry: Sendable {
    public let requestId: String
    public let method: String
    public let route: String
    public let status: Int
    public let nanoseconds: UInt64
}

/// Nil when the log level is above `info` (no request lines).
public typealias RequestLog = @Sendable (RequestLogEntry) -> Void

/// Everything every request gets, in one pass and one stack frame: its request id, CORS, an answer in the right
/// shape for whatever escaped the routes, `nosniff`, the `client-request-id` echo, its metrics and its log line.
/// One middleware rather than five, because each middleware is a frame that every request pays for in time and
/// every connection's task keeps in stack memory while it idles.
struct EdgeMiddleware<Errors: ErrorRenderer>: RouterMiddleware {
    typealias Context = LatchkeyRequestContext
    let errors: Errors
    let cors: AllowListCORS?
    let log: RequestLog?
    let metrics = RouteMetrics()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let active = metrics.started(request.method)
        // The client's `client-request-id` when it is a UUID (MSAL sends one), else Hummingbird's id for the request,
        // which every line logged through the request's logger carries already (the log handlers name it
        // `request_id`); so the logger's metadata is copied only when the client named the request.
        let echoed = request.headers[.clientRequestId].flatMap { UUIDString.isValid($0) ? $0 : nil }
        var context = context
        if let echoed { context.logger[metadataKey: "request_id"] = .string(echoed) }
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
        // JSON answers carry it already (JSONResponse's shared headers): setting it again would copy their storage.
        if response.headers[.xContentTypeOptions] == nil { response.headers[.xContentTypeOptions] = "nosniff" }
        let elapsed = DispatchTime.now().uptimeNanoseconds &- start
        let route = context.endpointPath ?? "(unmatched)"
        metrics.finished(route: route, method: request.method, status: response.status, nanoseconds: elapsed, thrown: thrown, active: active)
        log?(RequestLogEntry(requestId: echoed ?? context.id, method: request.method.rawValue, route: route, status: response.status.code,
                             nanoseconds: elapsed))
        return response
    }
}
