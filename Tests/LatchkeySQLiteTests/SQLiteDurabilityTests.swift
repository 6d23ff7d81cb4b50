import Foundation
import GRDB
import LatchkeyTestSupport
import Testing
@testable import LatchkeySQLite

/// A write is answered only once it is on disk: the writer connection syncs the WAL at every commit (FULL), not
/// only at checkpoints (NORMAL, which GRDB sets when it turns WAL on and which could lose answered rotations).
@Suite struct SQLiteDurabilityTests {
    @Test func theWriterSyncsTheWALOnEveryCommit() async throws {
        let path = NSTemporaryDirectory() + "latchkey-durable-" + UUID().uuidString + "/db.sqlite"
        let store = try SQLiteStore(path: path, migrations: try SQLMigrations.read(directory: EngineHarness.migrations))
        try store.migrate()
        // A write through group commit, then the pragmas on that same writer connection.
        try await store.commits.write { db in try db.execute(sql: "DELETE FROM sessions WHERE id = 'none'") }
        let (mode, synchronous) = try await store.database.writeWithoutTransaction { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
        }
        #expect(mode == "wal")
        #expect(synchronous == 2)  // FULL
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }

    /// What the background purge reads to tell a store serving requests from an idle one: every read, every write of a
    /// group commit's batch on its own, and a transaction as one.
    @Test func theStoreCountsItsReadsAndWrites() async throws {
        let path = NSTemporaryDirectory() + "latchkey-calls-" + UUID().uuidString + "/db.sqlite"
        let store = try SQLiteStore(path: path, migrations: try SQLMigrations.read(directory: EngineHarness.migrations))
        try store.migrate()
        let before = try #require(store.callsSoFar)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { try await store.commits.write { db in try db.execute(sql: "DELETE FROM sessions WHERE id = 'none'") } } }
            try await group.waitForAll()
        }
        #expect(store.callsSoFar == before + 8)
        _ = try await store.direct.sessions.find(id: "none")
        #expect(store.callsSoFar == before + 9)
        _ = try await store.transaction { tx in try await tx.sessions.find(id: "none") }
        #expect(store.callsSoFar == before + 10)
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
}
