import Foundation

/// `admin.*`: the operator's listener (Prometheus metrics and the admin API), loopback by default.
struct AdminSettings: ConfigSection {
    static let section = "admin"
    static let keys = ["listen", "token_file"]

    /// Nil when `admin.listen` is "" (no admin listener at all).
    var host: String?
    var port = 9464
    /// The bearer token the admin API takes; nil leaves the API off (metrics are still served).
    var token: String?

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
    }
}
