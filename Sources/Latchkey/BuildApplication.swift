import Foundation
import Hummingbird
import LatchkeyCore
import LatchkeyFunctions
import LatchkeyHTTP
import LatchkeySMTP
import LatchkeySQLite
import Logging
import Mustache
import ServiceLifecycle

/// The whole server from one configuration: store, engine, mail transport and worker, the three dialects' routes.
/// `serve` runs it; the in-process router tests build the same thing and drive it with `app.test(.router)`.
func buildApplication(_ config: LatchkeyConfig) async throws -> Application<RouterResponder<LatchkeyRequestContext>> {
    // Before the database is created: a refused start leaves nothing behind. Test mode has its own rule (loopback,
    // unless testing.allow_remote), which lifts the development defaults' one.
    if let testMode = config.testMode { try testMode.check(config) } else { try DevelopmentDefaults.check(config) }
    if let folder = config.testMode?.temporaryFolder(config) {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
    let runtime = try await Runtime.open(config, chatty: true)
    let logger = runtime.logger
    var settings = config.engine
    settings.commonPasswords = try CommonPasswords.load(config.commonPasswordsPath)
    if !settings.limits.enabled {
        logger.critical("limits.enabled is FALSE: no rate limits, mail quotas or lockouts. Test rigs only, never production.")
    }
    var composer = try mailComposer(config)
    let clock = AdjustableTime(), captured = CapturedProofs()
    if config.testMode != nil { composer.capture = captured }
    var functions = config.functions.mapValues { definition -> any OperatorFunction in
        switch definition {
        case .webhook(let url, let secret, let timeout): return WebhookFunction(url: url, secret: secret, timeoutSeconds: timeout)
        case .command(let argv, let timeout): return CommandFunction(argv: argv, timeoutSeconds: timeout)
        }
    }
    if config.testMode == nil { try await TestMode.refuseTestDatabase(runtime.store, config) }
    if config.testMode != nil {
        try await TestMode.claim(runtime.store)
        // Text messages are captured too: with no sender of the operator's, test mode's own stands in.
        if settings.mfa.smsFunction == nil {
            functions[TestMode.textSender] = CapturingTextSender(capture: captured, time: clock)
            settings.mfa.smsFunction = TestMode.textSender
            settings.mfa.methods.insert(.sms)
        }
    }
    let engine = try await LatchkeyEngine.start(store: runtime.store, settings: settings, mailComposer: composer,
                                                functions: functions, issuerClient: IssuerHTTPClient(), metadataFetcher: ClientMetadataHTTPClient(),
                                                time: config.testMode != nil ? clock as any TimeSource : SystemTime(), logger: logger)

    let transport: any MailTransport
    switch config.mail.transport {
    case .log:
        transport = LogMailTransport(logger: logger)
        logger.warning("mail.transport is 'log': mails, one-time codes included, are written to this log. Development only.")
    case .file:
        do { transport = try FileMailTransport(path: config.mail.file) } catch {
            throw StartupError(key: "mail.file", message: "cannot open \(config.mail.file) for writing", exitCode: .cannotCreate)
        }
    case .smtp:
        transport = SMTPMailTransport(settings: config.mail.smtp!, from: config.mail.from)
        if config.mail.smtp?.verifyCertificate == false {
            logger.warning("mail.smtp.verify_certificate is false: the relay's certificate is not checked.")
        }
    }
    var mailbox: TestingMailbox?
    if config.testingMailbox {
        mailbox = TestingMailbox()
        logger.warning("testing.mailbox is ON: GET /testing/v1/mail shows every mail, codes included, to anyone. Never enable in production.")
    }
    if config.testMode != nil {
        let banner = "TEST MODE: for automated tests only. Ready apps (GET /testing/v1/config), mails captured at /testing/v1/mail, "
            + "password hashing at scrypt 2^\(TestMode.passwordLogN) (production: 2^17), a clock tests can move, and the testing API "
            + "under /testing/v1/. Never with real accounts."
        logger.critical("\(banner)")
    } else if config.engine.passwords.scrypt.logN < 15 {
        logger.warning("passwords.scrypt_log_n=\(config.engine.passwords.scrypt.logN) is below the OWASP minimum (17 recommended).")
    }
    var worker = BackgroundWorker(engine: engine, transport: transport, mailbox: mailbox, policy: config.mail.outbox, logger: logger)
    worker.releaseClaimsAtStart = engine.store is SQLiteStore
    var services: [any Service] = [worker, IdlePages(logger: logger)]
    if let testMode = config.testMode {
        let testing = TestingService(engine: engine, clock: clock)
        if let file = testMode.importFile { try await TestStateFile.load(file, into: testing, logger: logger) }
        if let file = testMode.exportOnExit { services.insert(TestStateFile.ExportOnExit(path: file, testing: testing, logger: logger), at: 0) }
    }
    let requestLog = RequestLogLine.writer(format: config.logFormat, level: logger.logLevel)
    if let host = config.admin.host {
        Observability.bootstrapMetrics()
        var options = AdminOptions(host: host, port: config.admin.port, token: config.admin.token, metrics: Observability.metricsText)
        options.openAPIDocument = EmbeddedDefaults.openAPIDocument
        options.requestLog = requestLog
        options.listener = listenerHardening(config)
        options.listener.tls = config.admin.tlsCertificate.flatMap { certificate in config.admin.tlsKey.map { (certificate, $0) } }
        if config.admin.console {
            options.console = try consoleOptions(ConsoleSessionPolicy(idleSeconds: config.admin.consoleIdleSeconds,
                                                                      absoluteSeconds: config.admin.consoleAbsoluteSeconds))
            options.console?.accountCallback = config.admin.consoleCallbackURL
            if config.testMode != nil { options.console?.testMode = ConsoleTestMode(testing: TestingService(engine: engine, clock: clock), captured: captured) }
        }
        do { services.append(try AdminServer.application(engine: engine, options: options, logger: logger)) } catch {
            throw StartupError(key: "admin.tls", message: "cannot load the certificate or key: \(error)", exitCode: .config)
        }
        if !config.admin.isLoopback {
            logger.warning("admin.listen is \(host):\(config.admin.port), not loopback: metrics (and the admin API) are reachable from the network.")
        }
        if config.admin.token == nil { logger.notice("admin.token_file is not set: the admin API is off; /metrics is served.") }
    }
    if let published = config.server.publishedPort, published != config.server.port, config.server.trustedProxies.isEmpty {
        // Without a proxy in front, links, redirects and every token's issuer would name a port nothing listens on.
        let warning = "server.public_url is \(config.server.publicURL) (port \(published)) but the server listens on port \(config.server.port), and "
            + "server.trusted_proxies names no proxy: set public_url to the port clients reach, or list the proxy that forwards to it."
        logger.warning("\(warning)")
    }
    var serverOptions = ServerOptions(host: config.server.host, port: config.server.port, testingMailbox: mailbox)
    serverOptions.listener = listenerHardening(config)
    serverOptions.trustedProxies = config.server.trustedProxies
    (serverOptions.pages, serverOptions.pageStrings, serverOptions.pageStyle) = try pages(config)
    serverOptions.passkeyScript = EmbeddedDefaults.passkeyScript
    serverOptions.pageBrand = config.brand
    serverOptions.corsAllowedOrigins = config.server.corsAllowedOrigins
    serverOptions.parseMount = config.parse.mount
    serverOptions.parseMasterKeyIPs = config.parse.masterKeyIPs
    serverOptions.openAPIDocument = EmbeddedDefaults.openAPIDocument
    serverOptions.requestLog = requestLog
    if config.testMode != nil {
        serverOptions.testMode = TestModeOptions(clock: clock, config: TestMode.document(config), captured: captured,
                                                 issuers: try FakeIssuers(publicURL: config.server.publicURL, time: clock))
    }
    serverOptions.adminURL = config.admin.host.map { host in "http://\(host.contains(":") ? "[\(host)]" : host):\(config.admin.port)" }
    if let certificate = config.server.tlsCertificate, let key = config.server.tlsKey { serverOptions.listener.tls = (certificate, key) }
    let app: Application<RouterResponder<LatchkeyRequestContext>>
    do {
        app = try LatchkeyServer.application(engine: engine, options: serverOptions, services: services, logger: logger,
                                             onServerRunning: { _ in
                                                 // Off the start's path: the listener answers while the pages go.
                                                 Task.detached(priority: .background) { StartupPages.release(logger: logger) }
                                             })
    } catch {
        throw StartupError(key: "server.tls", message: "cannot load the certificate or key: \(error)", exitCode: .config)
    }
    let adminNote = config.admin.host.map { ", admin on \($0):\(config.admin.port)" } ?? ""
    logger.info("latchkey \(Latchkey.version) serving \(config.server.publicURL)\(adminNote) (database \(runtime.storeDescription), mail \(config.mail.transport.rawValue))")
    return app
}

/// Deadlines and connection caps from `server.*`, for both listeners (TLS is each listener's own).
private func listenerHardening(_ config: LatchkeyConfig) -> ListenerHardening {
    var listener = ListenerHardening()
    listener.idleTimeoutSeconds = Int64(config.server.idleTimeoutSeconds)
    listener.headerTimeoutSeconds = Int64(config.server.headerTimeoutSeconds)
    listener.connections = ConnectionCap.Limits(total: config.server.maxConnections, perAddress: config.server.maxConnectionsPerIP)
    return listener
}

private func mailComposer(_ config: LatchkeyConfig) throws -> MailComposer {
    do {
        var composer = if let directory = config.mail.templates { try MailComposer.load(directory: directory) } else {
            try MailComposer.load(templates: EmbeddedDefaults.mailTemplates, source: "(built in)")
        }
        // The mails carry the pages' brand: the name in subjects and text, the logo (from the pages) and accent in HTML.
        if let name = config.brand.name { composer.productName = name }
        if config.brand.logo != nil { composer.logoURL = config.server.publicURL + PageBrand.logoPath }
        if let accent = config.brand.accent { composer.accent = accent }
        return composer
    } catch {
        throw StartupError(key: "mail.templates", message: "\(error)", exitCode: .config)
    }
}

/// The operator console's built-in templates, words and style sheet.
func consoleOptions(_ policy: ConsoleSessionPolicy) throws -> ConsoleOptions {
    var library = MustacheLibrary()
    do { for (name, text) in EmbeddedDefaults.consolePages { try library.register(text, named: name) } } catch {
        throw StartupError(key: "admin.console", message: "a built-in console template does not parse: \(error)", exitCode: .config)
    }
    let strings = Dictionary(uniqueKeysWithValues: EmbeddedDefaults.consoleStrings.map { ($0.name, PageStrings.parse($0.text)) })
    return ConsoleOptions(templates: library, strings: strings, style: EmbeddedDefaults.consoleStyle, policy: policy)
}

/// The pages that came after `app_services.pages` folders were first copied (the passkey offer, the account page).
private let laterPages: Set<String> = ["passkey_offer", "account", "account_code", "account_authenticator", "account_recovery", "test_issuer", "passkey_status"]

/// The hosted pages: their templates, their words by language (`<language>.strings`) and their style sheet, from
/// `app_services.pages` when set (a missing words file or style sheet falls back to the built-in one), else built in.
private func pages(_ config: LatchkeyConfig) throws -> (MustacheLibrary, [String: [String: String]], String) {
    do {
        let folder = config.pagesDirectory
        let files = try folder.map { try TemplateFiles.read(directory: $0, suffix: ".mustache") } ?? EmbeddedDefaults.pages
        var library = MustacheLibrary()
        for (name, text) in files { try library.register(text, named: name) }
        // Pages added after an operator copied the folder come from the built-in set until the folder has its own.
        for (name, text) in EmbeddedDefaults.pages where laterPages.contains(name) && library.getTemplate(named: name) == nil {
            try library.register(text, named: name)
        }
        let required = ["reset_form", "confirm_form", "message", "sign_in", "code", "sign_up", "reset", "second_factor", "enrol", "authenticator", "recovery",
                        "consent", "logout"]
        if let missing = required.first(where: { library.getTemplate(named: $0) == nil }) {
            throw TemplateFiles.Missing(description: "\(missing).mustache is required (the built-in pages are in config/pages)")
        }
        let stringFiles = (try? folder.map { try TemplateFiles.read(directory: $0, suffix: ".strings") }) ?? nil
        var strings: [String: [String: String]] = [:]
        for (language, text) in EmbeddedDefaults.pageStrings { strings[language] = PageStrings.parse(text) }
        // A folder's words replace the built-in ones key by key: words for pages added later stay available.
        for (language, text) in stringFiles ?? [] { strings[language, default: [:]].merge(PageStrings.parse(text)) { _, custom in custom } }
        guard let english = strings["en"] else { throw TemplateFiles.Missing(description: "en.strings is required") }
        for (language, table) in strings {
            if let missing = Set(english.keys).subtracting(table.keys).sorted().first {
                throw TemplateFiles.Missing(description: "\(language).strings lacks \(missing)")
            }
        }
        let style = folder.flatMap { try? String(contentsOfFile: ($0 as NSString).appendingPathComponent("style.css"), encoding: .utf8) }
        return (library, strings, style ?? EmbeddedDefaults.pageStyle)
    } catch {
        throw StartupError(key: "app_services.pages", message: "\(error)", exitCode: .config)
    }
}
