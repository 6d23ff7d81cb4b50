import HTTPTypes
import Hummingbird
import LatchkeyCore
import Logging
import ServiceLifecycle

/// Everything the HTTP side needs to serve; built by the executable, shared with tests.
public struct ServerOptions: Sendable {
    public var host: String
    public var port: Int
    public var testingMailbox: TestingMailbox?
    public var idleTimeoutSeconds: Int64 = 60
    public init(host: String, port: Int, testingMailbox: TestingMailbox?) {
        self.host = host; self.port = port; self.testingMailbox = testingMailbox
    }
}

public enum LatchkeyServer {
    public static func router(engine: LatchkeyEngine, options: ServerOptions) -> Router<LatchkeyRequestContext> {
        let router = Router(context: LatchkeyRequestContext.self)
        router.add(middleware: ErrorMiddleware())
        NativeAuthRoutes(engine: engine).addRoutes(to: router)
        OpenIDRoutes(engine: engine).addRoutes(to: router)
        OperatorRoutes(engine: engine, testingMailbox: options.testingMailbox).addRoutes(to: router)
        return router
    }

    /// The application: HTTP/1.1 server plus background services (the outbox worker).
    public static func application(engine: LatchkeyEngine, options: ServerOptions, services: [any Service],
                                   logger: Logger, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        Application(
            router: router(engine: engine, options: options),
            server: .http1(configuration: .init(idleTimeout: .seconds(options.idleTimeoutSeconds))),
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "latchkey"),
            services: services,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? options.port) },
            logger: logger
        )
    }
}
