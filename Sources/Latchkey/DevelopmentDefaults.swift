import Foundation

/// The defaults that make a first run easy are unsafe where others can reach the server: the well-known
/// development client id, codes written to the log, a loopback issuer, the open test mailbox. Off loopback the
/// server refuses them unless `development: true` says this is a development machine.
enum DevelopmentDefaults {
    static func check(_ config: LatchkeyConfig) throws {
        guard !config.development, !isLoopback(config.server.host) else { return }
        var problems: [(String, String)] = []
        if config.engine.clients.contains(where: { $0.id == ClientList.devClient.id }) {
            problems.append(("clients", "the development client id \(ClientList.devClient.id) is still configured"))
        }
        if config.mail.transport == .log { problems.append(("mail.transport", "'log' writes one-time codes to the log")) }
        if let host = URL(string: config.server.publicURL)?.host, isLoopback(host) {
            problems.append(("server.public_url", "\(config.server.publicURL) is a loopback address: tokens would name it as issuer"))
        }
        if config.testingMailbox { problems.append(("testing.mailbox", "shows every mail, codes included, to anyone")) }
        guard let first = problems.first else { return }
        let rest = problems.dropFirst().map { "\($0.0) (\($0.1))" }.joined(separator: "; ")
        throw StartupError(key: first.0, message: "\(first.1); refused while listening on \(config.server.host), off loopback"
                               + (rest.isEmpty ? "" : "; also: \(rest)") + ". Configure it, or set development: true (LATCHKEY_DEVELOPMENT=true) on a development machine.",
                           exitCode: .config)
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }
}
