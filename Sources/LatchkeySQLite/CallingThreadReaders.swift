import Foundation
import GRDB
import Synchronization

/// Read-only connections of the server's own, used on the calling thread: a read takes an idle one (or opens one),
/// runs, and gives it back. GRDB's reader pool did the same through a semaphore, a barrier queue and a
/// `PRAGMA schema_version` on every read, to keep its schema cache fresh: a fifth of a passkey sign-in's lookup. The
/// schema changes only by migrations, which run before this server serves (SQLite itself re-prepares a statement
/// whose schema changed); what the cache holds (tables' columns and keys, for GRDB's query interface) is read on a
/// connection's first use. A WAL reader never waits for the writer.
final class CallingThreadReaders: Sendable {
    private let path: String
    private let configuration: Configuration
    private let idle = Mutex<[DatabaseQueue]>([])
    /// Connections kept open between reads: one per thread that can be reading at once (a read runs start to end
    /// on its thread, and tasks run on one thread per core), and a spare; a burst past it opens more, closed after.
    private let keptIdle: Int

    init(path: String, configuration: Configuration, keptIdle: Int = ProcessInfo.processInfo.activeProcessorCount + 1) {
        var configuration = configuration
        configuration.readonly = true
        self.path = path
        self.configuration = configuration
        self.keptIdle = keptIdle
    }

    /// `body` on one connection, statement by statement (each SELECT is its own snapshot).
    func lookup<T>(_ body: (Database) throws -> T) throws -> T {
        let reader = try idle.withLock { $0.popLast() } ?? DatabaseQueue(path: path, configuration: configuration)
        defer { idle.withLock { if $0.count < keptIdle { $0.append(reader) } } }
        return try reader.inDatabase(body)
    }

    /// `body` in one read transaction: one snapshot for all its statements.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try lookup { db in
            try db.cachedStatement(sql: "BEGIN DEFERRED").execute()
            do {
                let result = try body(db)
                try db.cachedStatement(sql: "COMMIT").execute()
                return result
            } catch {
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                throw error
            }
        }
    }
}
