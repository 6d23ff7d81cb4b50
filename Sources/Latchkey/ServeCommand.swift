import ArgumentParser
import Foundation
import Hummingbird
import LatchkeyCore
import LatchkeyHTTP
import Logging

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the server (the default).")
    @OptionGroup var options: ConfigOption

    func run() async throws {
        let runtime: Runtime
        do { runtime = try Runtime.open(options) } catch let error as ExitCodeError { throw ExitCode(error.code) }
        let config = runtime.config, logger = runtime.logger
        let engine = try await LatchkeyEngine.start(store: runtime.store, settings: config.engine, logger: logger)

        let transport: any MailTransport
        switch config.mailTransport {
        case .log:
            transport = LogMailTransport(logger: logger)
            logger.warning("mail.transport is 'log': mails, one-time codes included, are written to this log. Development only.")
        case .file:
            transport = try FileMailTransport(path: config.mailFile)
        }
        var mailbox: TestingMailbox?
        if config.testingMailbox {
            mailbox = TestingMailbox()
            logger.warning("testing.mailbox is ON: GET /testing/v1/mail shows every mail, codes included, to anyone. Never enable in production.")
        }
        if config.engine.passwords.scrypt.logN < 15 {
            logger.warning("passwords.scrypt_log_n=\(config.engine.passwords.scrypt.logN) is below the OWASP minimum (17 recommended).")
        }
        let worker = BackgroundWorker(engine: engine, transport: transport, mailbox: mailbox, logger: logger)
        var serverOptions = ServerOptions(host: config.host, port: config.port, testingMailbox: mailbox)
        serverOptions.idleTimeoutSeconds = Int64(config.idleTimeoutSeconds)
        let app = LatchkeyServer.application(engine: engine, options: serverOptions, services: [worker], logger: logger)
        logger.info("latchkey serving \(config.publicURL) (database \(config.databasePath), mail \(config.mailTransport.rawValue))")
        try await app.runService()
    }
}
