import HTTPTypes
import Hummingbird
import HummingbirdCore
import LatchkeyCore
import NIOCore
import Logging
import Mustache
import ServiceLifecycle

/// Everything the HTTP side needs to serve; built by the executable, shared with tests.
public struct ServerOptions: Sendable {
    public var host: String
    public var port: Int
    public var testingMailbox: TestingMailbox?
    /// Deadlines, header limits, the connection cap and TLS (trusted proxies are exempt from the per-address cap).
    public var listener = ListenerHardening()
    public var trustedProxies: [String] = []
    public var corsAllowedOrigins: [String] = []
    /// Templates of the hosted pages (config/pages), their words by language and their style sheet.
    public var pages: MustacheLibrary = MustacheLibrary()
    public var pageStrings: [String: [String: String]] = [:]
    public var pageStyle = ""
    /// The pages' one script (passkeys), served at /ui/passkeys.js.
    public var passkeyScript = ""
    /// The operator's name, logo and accent on the pages (`pages.brand`).
    public var pageBrand = PageBrand()
    /// The Parse dialect's mount path and the addresses a master key is accepted from.
    public var parseMount = "/parse"
    public var parseMasterKeyIPs: [String] = ["127.0.0.1", "::1"]
    /// The OpenAPI document served at `/openapi.json` (adjusted to this deployment when served).
    public var openAPIDocument: String?
    /// Where the admin listener is, for the document's admin server entry.
    public var adminURL: String?
    /// Writes each request's log line; nil when the log level is above `info`.
    public var requestLog: RequestLog?
    /// Test mode: its clock and the ready apps' document; nil otherwise (no `/testing/v1/` beyond the mailbox).
    public var testMode: TestModeOptions?
    public init(host: String, port: Int, testingMailbox: TestingMailbox?) {
        self.host = host; self.port = port; self.testingMailbox = testingMailbox
    }
}

/// What test mode hands the HTTP side: the clock its API moves, and the ready apps for `GET /testing/v1/config`.
public struct TestModeOptions: Sendable {
    public var clock: AdjustableTime
    public var config: JSONValue
    /// Every code and link sent, as data.
    public var captured: CapturedProofs
    /// The stand-in issuers (Apple, Google, any name).
    public var issuers: FakeIssuers?
    public init(clock: AdjustableTime, config: JSONValue, captured: CapturedProofs = CapturedProofs(), issuers: FakeIssuers? = nil) {
        self.clock = clock; self.config = config; self.captured = captured; self.issuers = issuers
    }
}

public enum LatchkeyServer {
    public static func router(engine: LatchkeyEngine, options: ServerOptions) -> Router<LatchkeyRequestContext> {
        let router = Router(context: LatchkeyRequestContext.self)
        var pages = HTMLPages(templates: options.pages, strings: options.pageStrings, brand: options.pageBrand)
        pages.testMode = options.testMode != nil
        let clientAddress = ClientAddress(trustedProxies: options.trustedProxies)
        let appServicesErrors = AppServicesError(passwords: engine.settings.passwords)
        // Server-wide: what no dialect's own middleware answered (404, 405, 413, broken framing), in the path's dialect.
        let parseMount = engine.settings.parseApps.isEmpty ? nil : options.parseMount
        let openAPI = options.openAPIDocument.map { document in
            OpenAPIDocument.prepare(document, publicURL: engine.settings.publicURL, parseMount: parseMount, adminURL: options.adminURL,
                                    testingMailbox: options.testingMailbox != nil, testMode: options.testMode != nil,
                                    // The console's own client is not one for apps to use.
                                    known: .init(clients: engine.settings.clients.map(\.id).filter { $0 != OperatorService.consoleClientId },
                                                 parseApps: engine.settings.parseApps.map(\.id),
                                                 appServicesApps: engine.settings.apps.map(\.id)))
        }
        let errors = PathDialectErrors(answers: surfaceAnswers(engine: engine, options: options), appServicesErrors: appServicesErrors,
                                       routes: openAPI?.routes ?? .empty, adminURL: options.adminURL)
        openAPI?.routes.prepareInBackground()
        let cors = options.corsAllowedOrigins.isEmpty ? nil : AllowListCORS(origins: options.corsAllowedOrigins)
        router.add(middleware: EdgeMiddleware(errors: errors, cors: cors, log: options.requestLog))
        let native = NativeAuthRoutes(engine: NativeAuthService(engine: engine), clientAddress: clientAddress, errors: NativeAuthErrors())
        native.addRoutes(to: router)
        TokenEndpointRoutes(tokens: TokenEndpointService(engine: engine), native: native, clientAddress: clientAddress).addRoutes(to: router)
        RegistrationRoutes(tokens: TokenEndpointService(engine: engine), clientAddress: clientAddress).addRoutes(to: router)
        AuthenticatorEndpoints(engine: NativeAuthService(engine: engine), clientAddress: clientAddress).addRoutes(to: router)
        AppServicesRoutes(engine: AppServicesService(engine: engine), clientAddress: clientAddress.serving(.appServices), errors: appServicesErrors)
            .addRoutes(to: router)
        HostedPages(engine: PagesService(engine: engine), pages: pages, clientAddress: clientAddress.serving(.appServices)).addRoutes(to: router)
        if let parseMount {
            ParseRoutes(engine: ParseService(engine: engine), mount: parseMount, masterKeyIPs: Set(options.parseMasterKeyIPs),
                        clientAddress: clientAddress.serving(.parse),
                        pages: pages)
                .addRoutes(to: router)
        }
        OpenIDRoutes(engine: PagesService(engine: engine), clientAddress: clientAddress.serving(.openID), languages: options.pageStrings.keys.sorted())
            .addRoutes(to: router)
        let pageCookies = PageCookies(secure: engine.settings.publicURL.lowercased().hasPrefix("https://"),
                                      sessionSeconds: engine.settings.openID.sessionTTLSeconds)
        let account = AccountPage(engine: SelfService(engine: engine), pages: pages, clientAddress: clientAddress.serving(.openID), cookies: pageCookies)
        account.addRoutes(to: router)
        InteractionPages(engine: PagesService(engine: engine), pages: pages, clientAddress: clientAddress.serving(.openID),
                         cookies: pageCookies, style: options.pageBrand.styled(options.pageStyle), script: options.passkeyScript, account: account)
            .addRoutes(to: router)
        if let openAPI { router.get("/openapi.json") { _, _ in openAPI.document.value.response() } }
        OperatorRoutes(engine: OperatorService(engine: engine), testingMailbox: options.testingMailbox).addRoutes(to: router)
        if let testMode = options.testMode {
            TestingRoutes(engine: TestingService(engine: engine, clock: testMode.clock), config: testMode.config, mailbox: options.testingMailbox,
                          captured: testMode.captured)
                .addRoutes(to: router)
            if let issuers = testMode.issuers { FakeIssuerRoutes(issuers: issuers, pages: pages, config: testMode.config).addRoutes(to: router) }
        }
        return router
    }

    /// How the public listener answers in each surface's shape what no route answered (its routers and its head guard).
    static func surfaceAnswers(engine: LatchkeyEngine, options: ServerOptions) -> SurfaceAnswers {
        .publicListener(pages: HTMLPages(templates: options.pages, strings: options.pageStrings, brand: options.pageBrand),
                        parseMount: engine.settings.parseApps.isEmpty ? nil : options.parseMount)
    }

    /// The application: HTTP/1.1 server plus background services (the outbox worker).
    public static func application(engine: LatchkeyEngine, options: ServerOptions, services: [any Service],
                                   logger: Logger, onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) throws
        -> Application<RouterResponder<LatchkeyRequestContext>> {
        // A trusted proxy speaks for many clients: it counts only against the total.
        let cap = ConnectionCap(limits: options.listener.connections, exemptAddresses: options.trustedProxies)
        let server = try options.listener.serverBuilder(cap: cap, answers: surfaceAnswers(engine: engine, options: options))
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
