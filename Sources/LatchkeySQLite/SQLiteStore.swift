import CSQLite
import Foundation
import GRDB
import LatchkeyCore

/// The embedded default store: one SQLite file in WAL mode (GRDB's DatabasePool: one writer, many readers).
public final class SQLiteStore: Store {
    public struct OpenError: Error, CustomStringConvertible {
        public enum Kind: Sendable { case missing, cannotCreate, unreadable }
        public let kind: Kind
        public let description: String
    }

    let database: any DatabaseWriter
    let readers: CallingThreadReaders
    /// The database file.
    public let path: String
    let migrator: DatabaseMigrator
    let gate = WriteGate()
    let activity = StoreActivity()
    let commits: GroupCommit

    /// Opens the database at `path` with the named migrations (`0001_init`, SQL text), in order.
    public init(path: String, migrations: [(name: String, text: String)], access: StoreAccess = .create,
                busyTimeoutSeconds: Double = 5) throws {
        self.path = path
        let fileManager = FileManager.default
        if access != .create, !fileManager.fileExists(atPath: path) {
            throw OpenError(kind: .missing, description: "no database at \(path) (start the server or run `latchkey migrate` first)")
        }
        let dir = (path as NSString).deletingLastPathComponent
        if access == .create, !dir.isEmpty, !fileManager.fileExists(atPath: dir) {
            do { try fileManager.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw OpenError(kind: .cannotCreate, description: "cannot create the folder \(dir) (\(Self.reason(error)))")
            }
        }
        _ = Self.memoryStatisticsOff
        var config = Configuration()
        config.busyMode = .timeout(busyTimeoutSeconds)
        config.readonly = access == .readOnly
        // A transaction spans several awaited calls on the writer connection (see `transaction`).
        config.allowsUnsafeTransactions = true
        config.prepareDatabase { db in
            guard !db.configuration.readonly else { return }
            // Deleted rows (used codes, wiped mail bodies) are overwritten, not left in free pages.
            try db.execute(sql: "PRAGMA secure_delete = ON")
            // The writer's temporary files in memory: each write of a group commit runs in a savepoint, whose
            // sub-journal (the pages it changed, kept to undo it alone) otherwise spills to a new file on disk past
            // 64 KiB, created and written inside the batch. The readers keep theirs on disk for large sorts.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        do {
            database = access == .readOnly ? try DatabaseQueue(path: path, configuration: config)
                                           : try DatabasePool(path: path, configuration: config)
            if access != .readOnly {
                try database.writeWithoutTransaction { db in
                    // GRDB sets NORMAL when it turns WAL on, which syncs only at checkpoints: a power cut could lose
                    // a rotation that was already answered. FULL syncs the WAL on every commit, which group commit
                    // shares among the writes of a batch. Set here, after GRDB's set-up, on the one writer connection.
                    try db.execute(sql: "PRAGMA synchronous = FULL")
                    // A checkpoint copies each page the WAL holds once, however often it was written since the last:
                    // every 4,000 pages (16 MiB of WAL) rather than SQLite's 1,000, a hot page (an index's last leaf, the
                    // hour's audit count) is copied a quarter as often, and the commits pay for fewer checkpoints.
                    try db.execute(sql: "PRAGMA wal_autocheckpoint = 4000")
                    // Take the write lock once now, so a read-only file or folder is reported at start, not at the first sign-up.
                    try db.execute(sql: "BEGIN IMMEDIATE; COMMIT")
                }
            }
        } catch {
            throw OpenError(kind: access == .readOnly ? .unreadable : .cannotCreate,
                            description: "cannot open \(path)\(access == .readOnly ? "" : " for writing") (\(Self.reason(error)))")
        }
        readers = CallingThreadReaders(path: path, configuration: config)
        migrator = SQLMigrations.migrator(migrations)
        commits = GroupCommit(database: database, gate: gate, activity: activity)
    }

    /// SQLite as Debian builds it has no per-connection lookaside memory, so every row and statement allocates through
    /// `sqlite3Malloc`, which with its memory statistics on takes one mutex for all connections: readers and the writer
    /// contended on it (futex waits inside SQLite's malloc). Nothing reads those statistics. Set before the first
    /// connection opens; ignored if SQLite has started already.
    private static let memoryStatisticsOff: Void = { _ = latchkey_sqlite3_memory_statistics_off() }()

    private static func reason(_ error: any Error) -> String {
        if let db = error as? DatabaseError {
            switch db.resultCode {
            case .SQLITE_READONLY: return "the file or its folder is read-only"
            case .SQLITE_CANTOPEN: return "permission denied or the folder is missing"
            case .SQLITE_NOTADB: return "not an SQLite database"
            default: return db.message ?? "\(db.resultCode)"
            }
        }
        if let cocoa = error as? CocoaError, let underlying = cocoa.userInfo[NSUnderlyingErrorKey] as? NSError {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return error.localizedDescription
    }

    /// Applies pending migrations in order, each in its own transaction. Returns the names applied now.
    @discardableResult
    public func migrate() throws -> [String] {
        let before = try database.read { try migrator.appliedIdentifiers($0) }
        try migrator.migrate(database)
        let after = try database.read { try migrator.appliedIdentifiers($0) }
        return after.filter { !before.contains($0) }.sorted()
    }

    public func isReady() async -> Bool {
        (try? await database.read { [migrator] db in try migrator.hasCompletedMigrations(db) }) ?? false
    }

    public var direct: any Repositories { SQLiteRepositories(database: database, readers: readers, commits: commits, activity: activity, transaction: nil) }

    /// BEGIN IMMEDIATE on the writer connection, the body's calls on that connection, then COMMIT; the write gate is
    /// held throughout, so no other write of this process lands inside it, and the file lock keeps other processes
    /// out. A cancelled request fails before COMMIT and is rolled back; ROLLBACK runs in a task of its own, which no
    /// cancellation reaches, so no transaction is ever left open.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        await gate.acquire()
        activity.note()
        let opened = OpenedTransaction()
        do {
            let result = try await body(SQLiteRepositories(database: database, readers: readers, commits: commits, activity: activity, transaction: opened))
            if opened.began { try await database.writeWithoutTransaction { try $0.execute(sql: "COMMIT") } }
            gate.release()
            return result
        } catch {
            try? await onWriter { db in if db.isInsideTransaction { try db.execute(sql: "ROLLBACK") } }
            gate.release()
            throw error
        }
    }

    public var callsSoFar: UInt64? { activity.soFar }

    public func isContention(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }

    private func onWriter(_ body: @escaping @Sendable (Database) throws -> Void) async throws {
        let database = self.database
        try await Task { try await database.writeWithoutTransaction(body) }.value
    }
}

/// Migrations are numbered SQL texts, recorded by GRDB in `grdb_migrations`.
public enum SQLMigrations {
    static func migrator(_ migrations: [(name: String, text: String)]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (name, sql) in migrations.sorted(by: { $0.name < $1.name }) {
            migrator.registerMigration(name) { db in try db.execute(sql: sql) }
        }
        return migrator
    }

    /// The numbered .sql files of a folder (`database.migrations`), for operators who keep their own copy.
    public static func read(directory: String) throws -> [(name: String, text: String)] {
        try TemplateFiles.read(directory: directory, suffix: ".sql").filter { $0.name.first?.isNumber == true && !$0.name.contains("/") }
    }
}
