import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL

/// `latchkey healthcheck`: asks the configured listener for /health/ready (the image's HEALTHCHECK), so the
/// check follows `server.port`, `server.host` and TLS from the same configuration the server reads.
struct HealthcheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "healthcheck", abstract: "Exit 0 when the local server is ready.")
    @OptionGroup var options: ConfigOption

    func run() async throws {
        let config = try Runtime.loadConfig(options)
        let wildcard = ["0.0.0.0", "::", "[::]"].contains(config.server.host)
        let host = wildcard ? "127.0.0.1" : (config.server.host.contains(":") && !config.server.host.hasPrefix("[") ? "[\(config.server.host)]" : config.server.host)
        let scheme = config.server.tlsCertificate == nil ? "http" : "https"
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none  // our own listener, by address: there is no name to verify
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        let answer: String
        do {
            let response = try await client.execute(HTTPClientRequest(url: "\(scheme)://\(host):\(config.server.port)/health/ready"), timeout: .seconds(3))
            answer = response.status == .ok ? "ready" : "not ready: HTTP \(response.status.code)"
        } catch {
            answer = "not ready: \(error)"
        }
        try? await client.shutdown()
        print(answer)
        if answer != "ready" { throw ExitCode(1) }
    }
}
