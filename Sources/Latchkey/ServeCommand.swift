import ArgumentParser
import Foundation
import NIOCore
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the server (the default).")
    @OptionGroup var options: ConfigOption
    @Flag(name: .long, help: "Test mode for app teams' integration tests (docs/testing.md): the same as testing.enabled: true.")
    var testing = false
    @Option(name: .long, help: "Public listener's port (server.port, LATCHKEY_SERVER_PORT).")
    var port: Int?
    @Option(name: .long, help: "Public listener's address (server.host, LATCHKEY_SERVER_HOST).")
    var host: String?
    @Option(name: .customLong("admin-port"), help: "Admin listener's port, on its configured address (admin.listen, LATCHKEY_ADMIN_LISTEN).")
    var adminPort: Int?
    @Option(name: .customLong("import"), help: "Test mode: load this state document (POST /testing/v1/export) at start (testing.import).")
    var importFile: String?

    /// The flags as the environment overrides they stand for: a flag beats the variable, which beats the file.
    func overrides() throws -> [String: String] {
        var environment: [String: String] = testing ? ["LATCHKEY_TESTING_ENABLED": "true"] : [:]
        if let port { environment["LATCHKEY_SERVER_PORT"] = String(port) }
        if let host { environment["LATCHKEY_SERVER_HOST"] = host }
        if let importFile { environment["LATCHKEY_TESTING_IMPORT"] = importFile }
        if let adminPort {
            // The admin listener keeps its configured address (loopback by default); only the port moves.
            let current = try Runtime.loadConfig(options, environment: environment)
            let address = current.admin.host ?? "127.0.0.1"
            environment["LATCHKEY_ADMIN_LISTEN"] = address.contains(":") ? "[\(address)]:\(adminPort)" : "\(address):\(adminPort)"
        }
        return environment
    }

    func run() async throws {
        let config = try Runtime.loadConfig(options, environment: try overrides())
        // Test mode's temporary database goes at exit, however the server stops.
        let temporary = config.testMode?.temporaryFolder(config)
        defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
        // Probed before either listener starts, so a taken port is one clean line, not one listener's shutdown noise.
        if !Self.canBind(config.server.host, config.server.port)
            || config.admin.host.map({ !Self.canBind($0, config.admin.port) }) == true { throw Self.busy(config) }
        let app = try await buildApplication(config)
        // Graceful shutdown runs in reverse order: the server stops accepting and finishes in-flight requests,
        // then the mail worker (one of the application's services, started before the server) delivers what is
        // due and stops.
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: app.logger))
        do {
            try await group.run()
            app.logger.info("latchkey stopped")
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw Self.busy(config)
        } catch let error as IOError where error.errnoCode == EACCES || error.errnoCode == EADDRNOTAVAIL {
            throw StartupError(key: "server.host", message: "cannot listen on \(config.server.host):\(config.server.port): \(String(cString: strerror(error.errnoCode)))",
                               exitCode: .unavailable)
        }
    }

    /// Names the listener whose address is taken (the public one when a probe cannot tell).
    static func busy(_ config: LatchkeyConfig) -> StartupError {
        if let admin = config.admin.host, canBind(config.server.host, config.server.port), !canBind(admin, config.admin.port) {
            return StartupError(key: "admin.listen", message: "\(admin):\(config.admin.port) is already in use; pick another port with "
                                + "--admin-port N or LATCHKEY_ADMIN_LISTEN=\(admin):N", exitCode: .unavailable)
        }
        return StartupError(key: "server.port", message: "\(config.server.host):\(config.server.port) is already in use; pick another port with "
                            + "--port N or LATCHKEY_SERVER_PORT=N", exitCode: .unavailable)
    }

    /// Whether a TCP socket could bind `host:port` now (IPv4 addresses only; any other host counts as bindable).
    static func canBind(_ host: String, _ port: Int) -> Bool {
        var address = sockaddr_in()
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return true }
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
