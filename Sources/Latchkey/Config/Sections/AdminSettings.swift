import Foundation

/// `admin.*`: the operator's listener (Prometheus metrics, the admin API and the console), loopback by default.
struct AdminSettings: ConfigSection {
    static let section = "admin"
    static let keys = ["listen", "token_file", "tls.certificate", "tls.key", "insecure_plaintext", "console",
                       "console_idle_seconds", "console_absolute_seconds", "console_url"]

    /// Nil when `admin.listen` is "" (no admin listener at all).
    var host: String?
    var port = 9464
    /// The bearer token the admin API takes; nil leaves the API off (metrics are still served).
    var token: String?
    var tlsCertificate: String?
    var tlsKey: String?
    /// The console at `/console/` (served when the admin API is on).
    var console = true
    var consoleIdleSeconds = 1800
    var consoleAbsoluteSeconds = 28_800
    /// Where operators' browsers reach the console (its account sign-in returns to `<url>/console/callback`).
    var consoleURL: String?

    /// The console's sign-in callback when operators can sign in with their accounts (the console is on).
    var consoleCallbackURL: String? { console && token != nil ? consoleURL.map { $0 + "/console/callback" } : nil }

    /// Whether the listener is reachable only from this machine.
    var isLoopback: Bool { host.map { $0 == "localhost" || $0 == "::1" || $0.hasPrefix("127.") } ?? true }

    init(_ config: SectionReader) throws {
        let listen = try config.string("listen", default: "127.0.0.1:9464").trimmingCharacters(in: .whitespaces)
        if !listen.isEmpty {
            guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port)
            else { throw config.error("listen", "must be HOST:PORT (e.g. 127.0.0.1:9464, [::1]:9464) or \"\" to turn it off") }
            var host = String(listen[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty else { throw config.error("listen", "names no host (e.g. 127.0.0.1:\(port))") }
            self.host = host
            self.port = port
        }
        if let file = try config.readableFile("token_file") {
            let text = (try? String(contentsOfFile: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            // A short token is guessable however constant-time the compare: 32 random bytes as hex or base64 is the norm.
            guard text.count >= 32 else { throw config.error("token_file", "must hold a token of at least 32 characters (e.g. openssl rand -hex 32)") }
            token = text
        }
        tlsCertificate = try config.readableFile("tls.certificate")
        tlsKey = try config.readableFile("tls.key")
        if (tlsCertificate == nil) != (tlsKey == nil) {
            throw config.error(tlsCertificate == nil ? "tls.certificate" : "tls.key", "admin.tls.certificate and admin.tls.key go together")
        }
        console = try config.bool("console", default: true)
        consoleIdleSeconds = try config.int("console_idle_seconds", default: 1800, range: 1...86_400)
        consoleAbsoluteSeconds = try config.int("console_absolute_seconds", default: 28_800, range: 1...604_800)
        // By default the listener's own address; a wildcard one is reached on loopback (an SSH tunnel, say).
        let reachable = host.map { ["0.0.0.0", "::", ""].contains($0) ? "127.0.0.1" : ($0.contains(":") ? "[\($0)]" : $0) }
        let derived = reachable.map { "\(tlsCertificate == nil ? "http" : "https")://\($0):\(port)" }
        let url = try config.string("console_url", default: derived ?? "").trimmingCharacters(in: .whitespaces)
        if !url.isEmpty {
            guard let parts = URLComponents(string: url), ["http", "https"].contains(parts.scheme ?? ""), parts.host?.isEmpty == false,
                  parts.path.isEmpty || parts.path == "/", parts.query == nil, parts.fragment == nil else {
                throw config.error("console_url", "must be the console's origin, e.g. https://admin.example.com:9464")
            }
            consoleURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        // The admin API's bearer token must not cross a network in clear text unless the operator says it may.
        let insecurePlaintext = try config.bool("insecure_plaintext", default: false)
        if token != nil, !isLoopback, tlsCertificate == nil, !insecurePlaintext {
            throw config.error("listen", "\(host!):\(port) is off loopback: serve the admin API over TLS (admin.tls.certificate and "
                               + "admin.tls.key), or set admin.insecure_plaintext: true for a private network you trust")
        }
    }
}
