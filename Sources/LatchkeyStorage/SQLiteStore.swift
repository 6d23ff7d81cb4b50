import Foundation
import GRDB
import LatchkeyCore

/// The embedded default store: one SQLite file in WAL mode (GRDB's DatabasePool: one writer, many readers).
public final class SQLiteStore: Store {
    let pool: DatabasePool
    let migrator: DatabaseMigrator

    /// Opens (creating if needed) the database at `path`; migrations come from `migrationsDirectory`.
    public init(path: String, migrationsDirectory: String, busyTimeoutSeconds: Double = 5) throws {
        let dir = (path as NSString).deletingLastPathComponent
        if !dir.isEmpty { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        var config = Configuration()
        config.busyMode = .timeout(busyTimeoutSeconds)
        config.prepareDatabase { db in
            // Deleted rows (used codes, wiped mail bodies) are overwritten, not left in free pages.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        pool = try DatabasePool(path: path, configuration: config)
        migrator = try SQLMigrations.migrator(directory: migrationsDirectory)
    }

    /// Applies pending migrations in order, each in its own transaction. Returns the names applied now.
    @discardableResult
    public func migrate() throws -> [String] {
        let before = try pool.read { try migrator.appliedIdentifiers($0) }
        try migrator.migrate(pool)
        let after = try pool.read { try migrator.appliedIdentifiers($0) }
        return after.filter { !before.contains($0) }.sorted()
    }

    public func isReady() async -> Bool {
        (try? await pool.read { [migrator] db in try migrator.hasCompletedMigrations(db) }) ?? false
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReading) throws -> T) async throws -> T {
        try await pool.read { db in try body(SQLiteTransaction(db: db)) }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StoreWriting) throws -> T) async throws -> T {
        try await pool.write { db in try body(SQLiteTransaction(db: db)) }
    }
}

/// Migrations are the numbered .sql files of Migrations/sqlite, recorded by GRDB in `grdb_migrations`.
enum SQLMigrations {
    static func migrator(directory: String) throws -> DatabaseMigrator {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".sql") && $0.first?.isNumber == true }
            .sorted()
        guard !files.isEmpty else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "\(directory)/*.sql"])
        }
        var migrator = DatabaseMigrator()
        for file in files {
            let sql = try String(contentsOfFile: (directory as NSString).appendingPathComponent(file), encoding: .utf8)
            migrator.registerMigration(String(file.dropLast(4))) { db in try db.execute(sql: sql) }
        }
        return migrator
    }
}
