import Foundation

/// `server.*`: where Latchkey listens, the URL clients use, timeouts, proxies, CORS and TLS.
struct ServerSettings: ConfigSection {
    static let section = "server"
    static let keys = ["host", "port", "public_url", "idle_timeout_seconds", "header_timeout_seconds", "trusted_proxies",
                       "cors.allowed_origins", "tls.certificate", "tls.key", "max_connections", "max_connections_per_ip"]

    var host = "127.0.0.1"
    var port = 8080
    var publicURL = ""
    var idleTimeoutSeconds = 60
    var headerTimeoutSeconds = 10
    var trustedProxies: [String] = []
    var corsAllowedOrigins: [String] = []
    var tlsCertificate: String?
    var tlsKey: String?
    var maxConnections = 8192
    var maxConnectionsPerIP = 128

    init(_ config: SectionReader) throws {
        host = try config.string("host", default: host)
        port = try config.int("port", default: port, range: 0...65535)
        // A wildcard listen address is no URL a client can use: default to loopback and let operators say better.
        let reachableHost = ["0.0.0.0", "::", "[::]"].contains(host) ? "127.0.0.1" : host
        publicURL = try config.string("public_url", default: "http://\(reachableHost):\(port)")
        while publicURL.hasSuffix("/") { publicURL.removeLast() }
        guard let url = URLComponents(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host?.isEmpty == false,
              url.query == nil, url.fragment == nil else {
            throw config.error("public_url", "must be an http(s) URL")
        }
        // The pages, their links, mailed links and cookies are all at the root of the origin: under a path, nobody
        // could sign in. Refused rather than half honoured.
        guard url.path.isEmpty else {
            throw config.error("public_url", "must be an origin without a path (here \(url.path)): Latchkey serves at the root of its "
                               + "origin, so give it a host of its own (e.g. https://id.example.com) rather than a path under another one")
        }
        idleTimeoutSeconds = try config.int("idle_timeout_seconds", default: idleTimeoutSeconds, range: 1...3600)
        headerTimeoutSeconds = try config.int("header_timeout_seconds", default: headerTimeoutSeconds, range: 1...300)
        trustedProxies = try config.stringList("trusted_proxies", default: [])
        for (index, proxy) in trustedProxies.enumerated() where !IPAddressText.isValid(proxy) {
            throw ConfigError(key: "\(config.key("trusted_proxies"))[\(index)]", message: "must be an IP address (got \(proxy))")
        }
        corsAllowedOrigins = try config.stringList("cors.allowed_origins", default: [])
        let certificate = try config.readableFile("tls.certificate")
        let key = try config.readableFile("tls.key")
        if (certificate == nil) != (key == nil) {
            throw config.error(certificate == nil ? "tls.certificate" : "tls.key", "server.tls.certificate and server.tls.key go together")
        }
        tlsCertificate = certificate
        tlsKey = key
        maxConnections = try config.int("max_connections", default: maxConnections, range: 1...1_000_000)
        maxConnectionsPerIP = try config.int("max_connections_per_ip", default: maxConnectionsPerIP, range: 1...maxConnections)
    }

    /// The port clients reach per `public_url` (its scheme's default when it names none).
    var publishedPort: Int? {
        guard let url = URLComponents(string: publicURL) else { return nil }
        return url.port ?? (url.scheme == "https" ? 443 : 80)
    }

    /// The host name in `public_url` (the default sender domain and EHLO name).
    var publicHost: String { URL(string: publicURL)?.host ?? "localhost" }
}
