import Foundation
import GRDB
import Testing
@testable import LatchkeySQLite

@Suite struct CallingThreadReadersTests {
    private static func database() throws -> (DatabasePool, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("readers-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/db.sqlite"
        let pool = try DatabasePool(path: path)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
            for i in 0..<100 { try db.execute(sql: "INSERT INTO t (id, v) VALUES (?, ?)", arguments: [i, "v\(i)"]) }
        }
        return (pool, path)
    }

    @Test func aBurstPastTheIdleConnectionsIsServedAndEachReadSeesTheLatestCommit() async throws {
        let (pool, path) = try Self.database()
        let readers = CallingThreadReaders(path: path, configuration: Configuration(), keptIdle: 1)
        let values = try await withThrowingTaskGroup(of: String?.self) { group in
            for i in 0..<64 {
                group.addTask { try readers.lookup { try String.fetchOne($0, sql: "SELECT v FROM t WHERE id = ?", arguments: [i % 100]) } }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(values.count == 64 && values.allSatisfy { $0 != nil })
        try await pool.write { try $0.execute(sql: "UPDATE t SET v = 'new' WHERE id = 7") }
        #expect(try readers.lookup { try String.fetchOne($0, sql: "SELECT v FROM t WHERE id = 7") } == "new")
    }

    @Test func aReadIsOneSnapshotAndItsConnectionsCannotWrite() throws {
        let (_, path) = try Self.database()
        let readers = CallingThreadReaders(path: path, configuration: Configuration())
        let (count, inside) = try readers.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM t"), db.isInsideTransaction)
        }
        #expect(count == 100 && inside)
        #expect(throws: DatabaseError.self) { try readers.lookup { try $0.execute(sql: "DELETE FROM t") } }
        #expect(throws: DatabaseError.self) { try readers.read { _ in throw DatabaseError(resultCode: .SQLITE_ABORT) } }
        // A read that failed left no transaction open on its connection.
        #expect(try readers.lookup { $0.isInsideTransaction } == false)
    }
}
