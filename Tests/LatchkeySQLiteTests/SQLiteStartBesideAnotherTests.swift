import Foundation
import GRDB
import LatchkeyTestSupport
import Logging
import Testing
@testable import LatchkeyCore
@testable import LatchkeySQLite

/// Two processes on one SQLite file at the same moment (a `migrate` beside a `serve`, a restart overlapping a stop):
/// a start that finds the file held past its busy timeout waits its turn and starts, whatever the machine's load.
@Suite struct SQLiteStartBesideAnotherTests {
    @Test func aStartWaitsForAnotherProcessHoldingTheDatabasePastTheBusyTimeout() async throws {
        let path = NSTemporaryDirectory() + "latchkey-beside-" + UUID().uuidString + "/db.sqlite"
        let migrations = try SQLMigrations.read(directory: EngineHarness.migrations)
        let first = try SQLiteStore(path: path, migrations: migrations)
        try first.migrate()
        let second = try SQLiteStore(path: path, migrations: migrations, busyTimeoutSeconds: 0.1)
        // Another process's connection takes the write lock and keeps it four times the second store's busy timeout.
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true  // the lock outlives one access, as another process's would
        let other = try DatabaseQueue(path: path, configuration: holding)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        let release = Task {
            try await Task.sleep(for: .milliseconds(400))
            try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        }
        // Without waiting its turn, this start would fail after 0.1 s with SQLITE_BUSY: the lock is held for 0.4 s.
        let engine = try await LatchkeyEngine.start(store: second, settings: EngineSettings(publicURL: "http://localhost", clients: [], attributes: []),
                                                    mailComposer: try MailComposer.load(directory: EngineHarness.repositoryRoot + "/config/templates"),
                                                    logger: Logger(label: "test"))
        try await release.value
        #expect(try await first.direct.serverValues.signingKeys().map(\.kid) == [engine.signingKeys[0].kid])
        #expect(!second.isContention(DatabaseError(resultCode: .SQLITE_CONSTRAINT)))
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
}
