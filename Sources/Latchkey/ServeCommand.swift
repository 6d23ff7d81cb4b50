import ArgumentParser
import Foundation
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
            let admin = config.admin.host.map { " or admin.listen \($0):\(config.admin.port)" } ?? ""
            throw StartupError(key: "server.port", message: "\(config.server.host):\(config.server.port)\(admin) is already in use",
                               exitCode: .unavailable)
        } catch let error as IOError where error.errnoCode == EACCES || error.errnoCode == EADDRNOTAVAIL {
            throw StartupError(key: "server.host", message: "cannot listen on \(config.server.host):\(config.server.port): \(String(cString: strerror(error.errnoCode)))",
                               exitCode: .unavailable)
        }
    }
}
