import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import HummingbirdTLS
import NIOSSL
import LatchkeyCore
import Logging
import Mustache
import ServiceLifecycle

/// Everything the HTTP side needs to serve; built by the executable, shared with tests.
public struct ServerOptions: Sendable {
    public var host: String
    public var port: Int
    public var testingMailbox: TestingMailbox?
    public var idleTimeoutSeconds: Int64 = 60
    /// A whole request head must arrive within this many seconds (slow clients are cut).
    public var headerTimeoutSeconds: Int64 = 10
    public var trustedProxies: [String] = []
    public var corsAllowedOrigins: [String] = []
    /// PEM certificate chain and private key paths; HTTPS when set.
    public var tls: (certificate: String, key: String)?
    /// Templates of the hosted confirm / reset pages (config/pages).
    public var pages: MustacheLibrary = MustacheLibrary()
    /// The Parse dialect's mount path and the addresses a master key is accepted from.
    public var parseMount = "/parse"
    public var parseMasterKeyIPs: [String] = ["127.0.0.1", "::1"]
    /// The OpenAPI document served at `/openapi.json` (adjusted to this deployment when served).
    public var openAPIDocument: String?
    /// Where the admin listener is, for the document's admin server entry.
    public var adminURL: String?
    public init(host: String, port: Int, testingMailbox: TestingMailbox?) {
        self.host = host; self.port = port; self.testingMailbox = testingMailbox
    }
}

public enum LatchkeyServer {
    public static func router(engine: LatchkeyEngine, options: ServerOptions) -> Router<LatchkeyRequestContext> {
        let router = Router(context: LatchkeyRequestContext.self)
        // Metrics and the request log outermost: they see every answer's final status, CORS preflights included.
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: RequestLogMiddleware())
        // CORS next, so error answers carry its headers too.
        if !options.corsAllowedOrigins.isEmpty { router.add(middleware: AllowListCORSMiddleware(origins: options.corsAllowedOrigins)) }
        let pages = HTMLPages(templates: options.pages)
        let clientAddress = ClientAddress(trustedProxies: options.trustedProxies)
        let appServicesErrors = AppServicesError(passwords: engine.settings.passwords)
        // Server-wide: what no dialect's own middleware answered (404, 405, 413, broken framing), in the path's dialect.
        let parseMount = engine.settings.parseApps.isEmpty ? nil : options.parseMount
        let openAPI = options.openAPIDocument.map { document in
            OpenAPIDocument.prepare(document, publicURL: engine.settings.publicURL, parseMount: parseMount, adminURL: options.adminURL,
                                    known: .init(clients: engine.settings.clients.map(\.id), parseApps: engine.settings.parseApps.map(\.id),
                                                 appServicesApps: engine.settings.apps.map(\.id)))
        }
        router.add(middleware: ErrorMiddleware(pages: pages, appServicesErrors: appServicesErrors, parseMount: parseMount,
                                               routes: openAPI?.routes ?? .empty))
        NativeAuthRoutes(engine: engine, clientAddress: clientAddress, errors: NativeAuthErrorMiddleware()).addRoutes(to: router)
        AppServicesRoutes(engine: engine, clientAddress: clientAddress.serving(.appServices), errors: AppServicesErrorMiddleware(errors: appServicesErrors))
            .addRoutes(to: router)
        HostedPages(engine: engine, pages: pages, clientAddress: clientAddress.serving(.appServices)).addRoutes(to: router)
        if let parseMount {
            ParseRoutes(engine: engine, mount: parseMount, masterKeyIPs: Set(options.parseMasterKeyIPs),
                        clientAddress: clientAddress.serving(.parse),
                        pages: pages)
                .addRoutes(to: router)
        }
        OpenIDRoutes(engine: engine).addRoutes(to: router)
        if let openAPI { router.get("/openapi.json") { _, _ in openAPI.document.response() } }
        OperatorRoutes(engine: engine, testingMailbox: options.testingMailbox).addRoutes(to: router)
        return router
    }

    /// The application: HTTP/1.1 server plus background services (the outbox worker).
    public static func application(engine: LatchkeyEngine, options: ServerOptions, services: [any Service],
                                   logger: Logger, onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) throws
        -> Application<RouterResponder<LatchkeyRequestContext>> {
        // Small header limits: nothing Latchkey serves needs big headers, and big ones cost memory per connection.
        let headTimeout = TimeAmount.seconds(options.headerTimeoutSeconds)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestHeadGuard(headTimeout: headTimeout)], idleTimeout: .seconds(options.idleTimeoutSeconds),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 32 * 1024, maxHeaderFieldCount: 100))
        var server: HTTPServerBuilder = .http1(configuration: http1)
        if let tls = options.tls {
            let chain = try NIOSSLCertificate.fromPEMFile(tls.certificate).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
            var tlsConfiguration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            tlsConfiguration.minimumTLSVersion = .tlsv12  // TLS 1.0 and 1.1 are broken and deprecated (RFC 8996)
            server = try .tls(.http1(configuration: http1), tlsConfiguration: tlsConfiguration)
        }
        return Application(
            router: router(engine: engine, options: options),
            server: server,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "latchkey"),
            services: services,
            onServerRunning: onServerRunning,
            logger: logger
        )
    }
}
