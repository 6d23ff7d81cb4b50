import Foundation
import NIOSSL
import PostgresNIO

/// Where the PostgreSQL store connects and how: from `database.url` (`postgres://user@host:port/db`), the password
/// (from `database.password_file`), `database.tls` and `database.pool_size`.
public struct PostgresSettings: Sendable {
    /// libpq's `sslmode` names: `prefer` falls back to clear text, `require` encrypts without checking the server's
    /// certificate, `verify-full` checks it and the host name against the system's CAs (or `database.tls_ca_file`).
    public enum TLSMode: String, Sendable, CaseIterable {
        case disable, prefer, require, verifyFull = "verify-full"
    }

    public struct URLError: Error, CustomStringConvertible {
        public let description: String
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    public var caFile: String?
    public var poolSize: Int

    /// Whether a URL names a PostgreSQL database (any other `database.url` is a mistake, not SQLite).
    public static func isPostgresURL(_ url: String) -> Bool {
        url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")
    }

    public init(url: String, password: String?, tls: TLSMode = .prefer, caFile: String? = nil, poolSize: Int = 10) throws {
        guard Self.isPostgresURL(url), let parts = URLComponents(string: url), let host = parts.host, !host.isEmpty else {
            throw URLError(description: "expected postgres://user@host[:port]/database")
        }
        guard let user = parts.user, !user.isEmpty else { throw URLError(description: "the URL names no user (postgres://user@host/db)") }
        let database = String(parts.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw URLError(description: "the URL names no database (postgres://user@host/db)") }
        self.host = host
        port = parts.port ?? 5432
        username = user.removingPercentEncoding ?? user
        self.password = password ?? parts.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        self.tls = tls
        self.caFile = caFile
        self.poolSize = poolSize
    }

    /// Whether a man in the middle could turn the connection into clear text: `prefer` falls back to it when the server
    /// does not offer TLS, which anyone on the path can arrange. Loopback and Unix sockets have no such path.
    public var mayBeDowngraded: Bool {
        let loopback = host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.") || host.hasPrefix("/")
        return tls == .prefer && !loopback
    }

    /// `host:port/database`, for logs (never the password).
    public var safeDescription: String { "postgres://\(username)@\(host):\(port)/\(database)" }

    func clientConfiguration() throws -> PostgresClient.Configuration {
        var encryption = TLSConfiguration.makeClientConfiguration()
        encryption.minimumTLSVersion = .tlsv12  // TLS 1.0 and 1.1 are broken and deprecated (RFC 8996)
        switch tls {
        case .disable, .prefer, .require: encryption.certificateVerification = .none
        case .verifyFull: if let caFile { encryption.trustRoots = .file(caFile) }
        }
        let mode: PostgresClient.Configuration.TLS = switch tls {
        case .disable: .disable
        case .prefer: .prefer(encryption)
        case .require, .verifyFull: .require(encryption)
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: username, password: password,
                                                         database: database, tls: mode)
        configuration.options.maximumConnections = poolSize
        // A fixed pool with no pool-side keep-alive. The pool otherwise arms an idle-timeout and a keep-alive timer
        // (`Task.sleep`) each time a connection comes back, and cancels them when it goes out again; a cancelled
        // sleep keeps its task and Dispatch timer alive until the deadline it was given (60 s and 30 s). Under load
        // that held hundreds of thousands of dead timers: RSS climbed past 200 MiB. Dead peers are still noticed
        // when the database closes the socket; a NAT that drops idle flows is kept open by PostgreSQL's own
        // `tcp_keepalives_idle` (docs/operations.md, "Several replicas on PostgreSQL").
        configuration.options.minimumConnections = poolSize
        configuration.options.keepAliveBehavior = nil
        // A replica whose database is gone answers "not ready" and fails requests fast instead of queueing them.
        configuration.options.connectTimeout = .seconds(3)
        configuration.options.additionalStartupParameters = [("application_name", "latchkey")]
        return configuration
    }
}
