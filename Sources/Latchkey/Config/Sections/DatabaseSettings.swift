import Foundation
import LatchkeyPostgres

/// `database.*`: the SQLite file (the default), or a PostgreSQL database shared by several replicas.
struct DatabaseSettings: ConfigSection {
    static let section = "database"
    static let keys = ["path", "migrations", "busy_timeout_ms", "url", "password_file", "tls", "tls_ca_file", "pool_size"]

    var path = "data/latchkey.sqlite"
    var migrationsDirectory: String?
    var busyTimeoutMilliseconds = 5000
    /// Set by `database.url`: the store is PostgreSQL and `path` is not used.
    var postgres: PostgresSettings?

    /// Which database this is, for people (never the password): the SQLite file's full path or postgres://host:port/db.
    var summary: String {
        if let postgres { return "postgres://\(postgres.host):\(postgres.port)/\(postgres.database)" }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    init(_ config: SectionReader) throws {
        path = try config.path("path", default: path)!
        migrationsDirectory = try config.path("migrations", default: nil)
        busyTimeoutMilliseconds = try config.int("busy_timeout_ms", default: busyTimeoutMilliseconds, range: 10...60000)
        // Every key is read (and checked) whether or not a URL is set, so a typo is never silently ignored.
        let url = try config.string("url", default: "", secret: true)
        var password: String?
        if let file = try config.path("password_file", default: nil) {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw config.error("password_file", "cannot read \(file)") }
            password = text.trimmingCharacters(in: .newlines)
        }
        let tlsName = try config.string("tls", default: PostgresSettings.TLSMode.prefer.rawValue)
        guard let tls = PostgresSettings.TLSMode(rawValue: tlsName) else {
            throw config.error("tls", "must be disable, prefer, require or verify-full (got \(tlsName))")
        }
        let caFile = try config.readableFile("tls_ca_file")
        if caFile != nil, tls != .verifyFull { throw config.error("tls_ca_file", "is only used with database.tls: verify-full") }
        let poolSize = try config.int("pool_size", default: 10, range: 1...500)
        guard !url.isEmpty else { return }
        guard PostgresSettings.isPostgresURL(url) else {
            throw config.error("url", "must be postgres://user@host[:port]/database (SQLite is chosen with database.path)")
        }
        do {
            postgres = try PostgresSettings(url: url, password: password, tls: tls, caFile: caFile, poolSize: poolSize)
        } catch let error as PostgresSettings.URLError {
            throw config.error("url", error.description)
        }
    }
}
