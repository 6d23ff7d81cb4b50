import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import Logging

/// One log line per request: request id (the client's `client-request-id` when it sent a UUID), method, route
/// template, status and duration. Never the raw path, query, headers or body: those can carry tokens and emails.
/// Every line the request's handlers log carries the same `request_id`.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var context = context
        let requestId = request.headers[.clientRequestId].flatMap { UUIDString.isValid($0) ? $0 : nil } ?? SecureRandom.uuidString()
        context.logger[metadataKey: "request_id"] = .string(requestId)
        let logger = context.logger
        guard logger.logLevel <= .info else { return try await next(request, context) }
        do {
            let response = try await next(request, context)
            Self.log(logger, request, context, status: response.status, since: start)
            return response
        } catch {
            Self.log(logger, request, context, status: (error as? any HTTPResponseError)?.status ?? .internalServerError, since: start)
            throw error
        }
    }

    private static func log(_ logger: Logger, _ request: Request, _ context: Context, status: HTTPResponse.Status, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("request", metadata: [
            "method": .string(request.method.rawValue), "route": .string(context.endpointPath ?? "(unmatched)"),
            "status": .stringConvertible(status.code), "duration_ms": .string(String(format: "%.2f", milliseconds)),
        ])
    }
}
