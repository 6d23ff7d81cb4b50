import Foundation
import GRDB
import LatchkeyCore

/// Every repository on one SQLite database. Inside a transaction each call runs on the writer connection that
/// holds the open transaction; outside one, reads go to the reader pool and writes take the write gate.
struct SQLiteRepositories: Repositories {
    let database: any DatabaseWriter
    let gate: WriteGate
    let inTransaction: Bool

    var users: any UserRepository { self }
    var flows: any FlowRepository { self }
    var linkTokens: any LinkTokenRepository { self }
    var sessions: any SessionRepository { self }
    var outbox: any OutboxRepository { self }
    var audit: any AuditRepository { self }
    var serverValues: any ServerValueRepository { self }
    var maintenance: any MaintenanceRepository { self }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        inTransaction ? try await database.writeWithoutTransaction(body) : try await database.read(body)
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if inTransaction { return try await database.writeWithoutTransaction(body) }
        await gate.acquire()
        do {
            let result = try await database.write(body)
            await gate.release()
            return result
        } catch {
            await gate.release()
            throw error
        }
    }
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
