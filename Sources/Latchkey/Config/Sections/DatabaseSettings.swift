/// `database.*`: the SQLite file, optional migrations folder, and how long a write waits for a lock.
struct DatabaseSettings: ConfigSection {
    static let section = "database"
    static let keys = ["path", "migrations", "busy_timeout_ms"]

    var path = "data/latchkey.sqlite"
    var migrationsDirectory: String?
    var busyTimeoutMilliseconds = 5000

    init(_ config: SectionReader) throws {
        path = try config.path("path", default: path)!
        migrationsDirectory = try config.path("migrations", default: nil)
        busyTimeoutMilliseconds = try config.int("busy_timeout_ms", default: busyTimeoutMilliseconds, range: 10...60000)
    }
}
