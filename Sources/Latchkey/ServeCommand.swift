import ArgumentParser
import Foundation
import Hummingbird
import LatchkeyCore
import LatchkeyHTTP
import LatchkeyFunctions
import LatchkeySMTP
import Logging
import Mustache
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the server (the default).")
    @OptionGroup var options: ConfigOption

    func run() async throws {
        let runtime: Runtime
        do { runtime = try Runtime.open(options) } catch let error as ExitCodeError { throw ExitCode(error.code) }
        let config = runtime.config, logger = runtime.logger
        var settings = config.engine
        settings.commonPasswords = CommonPasswords.load(config.commonPasswordsPath, logger: logger)
        if !settings.limits.enabled {
            logger.critical("limits.enabled is FALSE: no rate limits, mail quotas or lockouts. Test rigs only, never production.")
        }
        let composer: MailComposer
        do { composer = try await MailComposer.load(directory: config.mailTemplates) } catch {
            FileHandle.standardError.write(Data("latchkey: configuration error: mail.templates: \(error)\n".utf8))
            throw ExitCode(78)
        }
        let functions = config.functions.mapValues { definition -> any OperatorFunction in
            switch definition {
            case .webhook(let url, let secret, let timeout): return WebhookFunction(url: url, secret: secret, timeoutSeconds: timeout)
            case .command(let argv, let timeout): return CommandFunction(argv: argv, timeoutSeconds: timeout)
            }
        }
        let engine = try await LatchkeyEngine.start(store: runtime.store, settings: settings, mailComposer: composer,
                                                    functions: functions, logger: logger)

        let transport: any MailTransport
        switch config.mailTransport {
        case .log:
            transport = LogMailTransport(logger: logger)
            logger.warning("mail.transport is 'log': mails, one-time codes included, are written to this log. Development only.")
        case .file:
            transport = try FileMailTransport(path: config.mailFile)
        case .smtp:
            transport = SMTPMailTransport(settings: config.smtp!, from: config.mailFrom)
            if config.smtp?.verifyCertificate == false {
                logger.warning("mail.smtp.verify_certificate is false: the relay's certificate is not checked.")
            }
        }
        var mailbox: TestingMailbox?
        if config.testingMailbox {
            mailbox = TestingMailbox()
            logger.warning("testing.mailbox is ON: GET /testing/v1/mail shows every mail, codes included, to anyone. Never enable in production.")
        }
        if config.engine.passwords.scrypt.logN < 15 {
            logger.warning("passwords.scrypt_log_n=\(config.engine.passwords.scrypt.logN) is below the OWASP minimum (17 recommended).")
        }
        let worker = BackgroundWorker(engine: engine, transport: transport, mailbox: mailbox, policy: config.outbox, logger: logger)
        var serverOptions = ServerOptions(host: config.host, port: config.port, testingMailbox: mailbox)
        serverOptions.idleTimeoutSeconds = Int64(config.idleTimeoutSeconds)
        serverOptions.trustedProxies = config.trustedProxies
        do { serverOptions.pages = try await MustacheLibrary(directory: config.pagesDirectory) } catch {
            FileHandle.standardError.write(Data("latchkey: configuration error: app_services.pages: \(error)\n".utf8))
            throw ExitCode(78)
        }
        if serverOptions.pages.getTemplate(named: "reset_form") == nil {
            FileHandle.standardError.write(Data("latchkey: configuration error: app_services.pages: no templates in \(config.pagesDirectory)\n".utf8))
            throw ExitCode(78)
        }
        serverOptions.corsAllowedOrigins = config.corsAllowedOrigins
        if let certificate = config.tlsCertificate, let key = config.tlsKey { serverOptions.tls = (certificate, key) }
        let app = try LatchkeyServer.application(engine: engine, options: serverOptions, services: [], logger: logger)
        logger.info("latchkey serving \(config.publicURL) (database \(config.databasePath), mail \(config.mailTransport.rawValue))")
        // Graceful shutdown runs in reverse order: the server stops accepting and finishes in-flight requests,
        // then the mail worker delivers what is due and stops.
        let group = ServiceGroup(configuration: .init(
            services: [worker, app],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
