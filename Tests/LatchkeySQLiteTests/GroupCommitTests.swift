import Foundation
import GRDB
import LatchkeyTestSupport
import Testing
@testable import LatchkeySQLite

@Suite struct GroupCommitTests {
    private struct Refused: Error {}

    /// Writes that throw halfway (after a row of their own) share batches with writes that stand: each caller gets
    /// its own outcome, and of a thrown write nothing is left, however the batches formed.
    @Test func aWriteThatThrowsHalfwayUndoesOnlyItself() async throws {
        let path = NSTemporaryDirectory() + "latchkey-batch-" + UUID().uuidString + "/db.sqlite"
        let store = try SQLiteStore(path: path, migrations: try SQLMigrations.read(directory: EngineHarness.migrations))
        try store.migrate()
        try await store.database.write { try $0.execute(sql: "CREATE TABLE marks (n INTEGER PRIMARY KEY)") }
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for n in 0..<200 {
                group.addTask {
                    do {
                        let echoed = try await store.commits.write { db -> Int in
                            try db.execute(sql: "INSERT INTO marks (n) VALUES (?)", arguments: [n])
                            if n % 3 == 0 { throw Refused() }
                            // A duplicate key: the statement fails, the write goes on (SQLite undoes the statement).
                            try? db.execute(sql: "INSERT INTO marks (n) VALUES (?)", arguments: [n])
                            return n
                        }
                        return (n, echoed == n)
                    } catch is Refused {
                        return (n, false)
                    }
                }
            }
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes.count == 200)
        for (n, stood) in outcomes { #expect(stood == (n % 3 != 0), "write \(n)") }
        let kept = try await store.database.read { try Int.fetchAll($0, sql: "SELECT n FROM marks ORDER BY n") }
        #expect(kept == (0..<200).filter { $0 % 3 != 0 })
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
}
