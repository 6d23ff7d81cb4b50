import ArgumentParser
import Foundation
import Hummingbird
import LatchkeyCore
import LatchkeyHTTP
import LatchkeyFunctions
import LatchkeySMTP
import Logging
import Mustache
import NIOCore
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the server (the default).")
    @OptionGroup var options: ConfigOption

    func run() async throws {
        let config = try Runtime.loadConfig(options)
        let app = try await buildApplication(config)
        // Graceful shutdown runs in reverse order: the server stops accepting and finishes in-flight requests,
        // then the mail worker (one of the application's services, started before the server) delivers what is
        // due and stops.
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: app.logger))
        do { try await group.run() } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw StartupError(key: "server.port", message: "\(config.host):\(config.port) is already in use", exitCode: .unavailable)
        } catch let error as IOError where error.errnoCode == EACCES || error.errnoCode == EADDRNOTAVAIL {
            throw StartupError(key: "server.host", message: "cannot listen on \(config.host):\(config.port): \(String(cString: strerror(error.errnoCode)))",
                               exitCode: .unavailable)
        }
    }

    static func mailComposer(_ config: LatchkeyConfig) throws -> MailComposer {
        do {
            if let directory = config.mailTemplates { return try MailComposer.load(directory: directory) }
            return try MailComposer.load(templates: EmbeddedDefaults.mailTemplates, source: "(built in)")
        } catch {
            throw StartupError(key: "mail.templates", message: "\(error)", exitCode: .config)
        }
    }

    static func pages(_ config: LatchkeyConfig) throws -> MustacheLibrary {
        do {
            let files = try config.pagesDirectory.map { try TemplateFiles.read(directory: $0, suffix: ".mustache") } ?? EmbeddedDefaults.pages
            var library = MustacheLibrary()
            for (name, text) in files { try library.register(text, named: name) }
            guard library.getTemplate(named: "reset_form") != nil, library.getTemplate(named: "message") != nil else {
                throw TemplateFiles.Missing(description: "reset_form.mustache and message.mustache are required")
            }
            return library
        } catch {
            throw StartupError(key: "app_services.pages", message: "\(error)", exitCode: .config)
        }
    }
}
