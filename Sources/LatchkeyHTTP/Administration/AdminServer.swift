import Hummingbird
import HummingbirdCore
import LatchkeyCore
import Logging
import NIOCore

/// What the operator's listener serves: Prometheus metrics always, the admin API when a token is configured.
public struct AdminOptions: Sendable {
    public var host: String
    public var port: Int
    /// The admin API's bearer token; nil turns the API off (it answers 503 saying so).
    public var token: String?
    /// The Prometheus text exposition of every metric.
    public var metrics: @Sendable () -> [UInt8]
    /// The OpenAPI document, whose admin paths tell an unrouted method (405) from an unknown path (404).
    public var openAPIDocument: String?
    /// The same HTTP/1.1 hardening as the public listener (and TLS when configured).
    public var listener = ListenerHardening()
    /// Writes each request's log line; nil when the log level is above `info`.
    public var requestLog: RequestLog?
    /// The operator console at `/console/`; served only when the admin API is on (`token`).
    public var console: ConsoleOptions?
    public init(host: String, port: Int, token: String?, metrics: @escaping @Sendable () -> [UInt8]) {
        self.host = host; self.port = port; self.token = token; self.metrics = metrics
    }
}

public enum AdminServer {
    public static func router(engine: LatchkeyEngine, options: AdminOptions) -> Router<LatchkeyRequestContext> {
        let router = Router(context: LatchkeyRequestContext.self)
        let operatorService = OperatorService(engine: engine)
        let console = options.token.flatMap { token in
            options.console.map { Console(engine: operatorService, options: $0, token: token, secure: options.listener.tls != nil) }
        }
        // Router-wide, so an unknown path or method answers in the API's JSON shape (or as a console page) too.
        let routes = options.openAPIDocument.map(OpenAPIDocument.adminRoutes) ?? .empty
        routes.prepareInBackground()
        router.add(middleware: EdgeMiddleware(errors: AdminErrors(routes: routes,
                                                                  console: console.map { ConsoleErrors(pages: $0.pages) }),
                                              cors: nil, log: options.requestLog))
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                     body: .init(byteBuffer: ByteBuffer(bytes: options.metrics())))
        }
        Favicon.addRoute(to: router)
        let api = router.group("/admin/v1").add(middleware: AdminTokenMiddleware(token: options.token))
        AdminRoutes(engine: operatorService).addRoutes(to: api)
        console?.addRoutes(to: router)
        return router
    }

    /// An HTTP/1.1 listener with the public one's deadlines and limits; meant for loopback or a private network,
    /// behind no proxy, over TLS when it leaves loopback.
    public static func application(engine: LatchkeyEngine, options: AdminOptions, logger: Logger) throws
        -> Application<RouterResponder<LatchkeyRequestContext>> {
        Application(router: router(engine: engine, options: options),
                    server: try options.listener.serverBuilder(
                        cap: ConnectionCap(limits: options.listener.connections),
                        answers: .adminListener(consolePages: options.token == nil ? nil : options.console.map(Console.pages))),
                    configuration: .init(address: .hostname(options.host, port: options.port), serverName: "latchkey-admin"),
                    logger: logger)
    }
}
