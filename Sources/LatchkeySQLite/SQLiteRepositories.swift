import Foundation
import GRDB
import LatchkeyCore

/// Every repository on one SQLite database. Inside a transaction each call runs on the writer connection that
/// holds the open transaction; outside one, reads go to the reader pool and writes join the next group commit.
struct SQLiteRepositories: SingleObjectRepositories {
    let database: any DatabaseWriter
    let readers: CallingThreadReaders
    let commits: GroupCommit
    let activity: StoreActivity
    /// Set inside `SQLiteStore.transaction`; nil for stand-alone calls.
    let transaction: OpenedTransaction?

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if let transaction { return try await inside(transaction, body) }
        return try readOnCallingThread(body)
    }

    /// A lookup by one indexed statement (or a chain where each step keys the next): a single SELECT is atomic in
    /// SQLite by itself, so the BEGIN/COMMIT that `read` wraps around its body would be a third of its cost.
    func lookup<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if let transaction { return try await inside(transaction, body) }
        return try lookupOnCallingThread(body)
    }

    private func lookupOnCallingThread<T>(_ body: (Database) throws -> T) throws -> T {
        activity.note()
        return try readers.lookup(body)
    }

    /// Reads run on the calling thread: a WAL reader never waits for the writer, and our reads are indexed point
    /// lookups of microseconds, while GRDB's async read costs two thread hops (to a reader's queue and back) that
    /// were a fifth of a userinfo call. Writes keep their own queue, since a commit waits for fsync.
    private func readOnCallingThread<T>(_ body: (Database) throws -> T) throws -> T {
        activity.note()
        return try readers.read(body)
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if let transaction { return try await inside(transaction, body) }
        return try await commits.write(body)
    }

    /// The first call of a transaction opens it (BEGIN IMMEDIATE) in the same trip to the writer connection.
    private func inside<T: Sendable>(_ transaction: OpenedTransaction, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.writeWithoutTransaction { db in
            if !transaction.began {
                if db.isInsideTransaction { try db.execute(sql: "ROLLBACK") }  // never expected: a leftover is not ours
                try db.execute(sql: "BEGIN IMMEDIATE")
                transaction.began = true
            }
            return try body(db)
        }
    }
}

/// Whether a transaction has sent BEGIN yet. Only touched on the writer connection's queue, one call at a time.
final class OpenedTransaction: @unchecked Sendable {
    var began = false
}

extension Database {
    /// `UPDATE table SET <every column> WHERE key = ? AND <condition>`: true when a row matched.
    func update<R: PersistableRecord>(_ record: R, key: String, _ keyValue: any DatabaseValueConvertible,
                                      if condition: String, _ arguments: StatementArguments) throws -> Bool {
        let columns = try record.databaseDictionary.sorted { $0.key < $1.key }
        let assignments = columns.map { "\($0.key) = ?" }.joined(separator: ", ")
        try execute(sql: "UPDATE \(R.databaseTableName) SET \(assignments) WHERE \(key) = ? AND \(condition)",
                    arguments: StatementArguments(columns.map(\.value)) + [keyValue] + arguments)
        return changesCount == 1
    }
}
