import Foundation
import LatchkeyCore
import Logging
import PostgresNIO

/// Every repository on one PostgreSQL database. Inside `PostgresStore.transaction` each call runs on the connection
/// that holds the open transaction; outside one, each call takes a pooled connection for itself.
struct PostgresRepositories: SingleObjectRepositories {
    let client: PostgresClient
    /// Set inside a transaction; nil for stand-alone calls.
    let connection: PostgresConnection?
    let logger: Logger

    /// Runs one statement and returns its rows (a write returns what its RETURNING clause names).
    @discardableResult
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        if let connection { return try await connection.query(query, logger: logger).collect() }
        return try await ConnectionLease.with(client) { [logger] in try await $0.query(query, logger: logger).collect() }
    }

    /// Several statements that must land together: in the caller's transaction, or in one of their own.
    func atomically<T: Sendable>(_ body: @escaping @Sendable (PostgresRepositories) async throws -> T) async throws -> T {
        if connection != nil { return try await body(self) }
        return try await ConnectionLease.with(client) { [client, logger] connection in
            try await PostgresRepositories.inTransaction(on: connection, logger: logger) { connection in
                try await body(PostgresRepositories(client: client, connection: connection, logger: logger))
            }
        }
    }

    /// BEGIN, the body, COMMIT; ROLLBACK on a throw. A connection whose ROLLBACK fails is closed, so the pool never
    /// hands out one still inside a transaction.
    static func inTransaction<T: Sendable>(on connection: PostgresConnection, logger: Logger,
                                           _ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await connection.query("BEGIN", logger: logger)
        do {
            let result = try await body(connection)
            try await connection.query("COMMIT", logger: logger)
            return result
        } catch {
            do { try await connection.query("ROLLBACK", logger: logger) } catch { try? await connection.close() }
            throw error
        }
    }
}

/// One row's columns by name; `prefix` picks one table's columns out of a join (`u_email` for `email`).
struct Columns {
    let row: PostgresRandomAccessRow
    var prefix = ""

    /// The named column as `T` (`T?` for a nullable one).
    func value<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        try row[prefix + name].decode(T.self)
    }

    /// A text column holding one of an enum's raw values.
    func value<T: RawRepresentable>(_ name: String, as type: T.Type = T.self) throws -> T where T.RawValue == String {
        let raw = try row[prefix + name].decode(String.self)
        guard let value = T(rawValue: raw) else { throw PostgresDecodingError.Code.failure }
        return value
    }
}

extension [String] {
    /// `u.id AS u_id, ...`: a joined table's columns under its alias, so two tables' same names stay apart in one row
    /// (read back with `Columns(row:prefix:)`).
    func prefixed(_ alias: String) -> String { map { "\(alias).\($0) AS \(alias)_\($0)" }.joined(separator: ", ") }
}

/// jsonb columns (attributes, flow state) travel as their JSON encoding.
struct JSONB<Value: Codable & Sendable>: PostgresCodable, Codable, Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
    init(from decoder: any Decoder) throws { value = try Value(from: decoder) }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

extension PSQLError {
    /// The SQLSTATE of an error the server reported (23505 is a unique violation).
    var sqlState: String? { serverInfo?[.sqlState] }
    var constraint: String? { serverInfo?[.constraintName] }
}

extension PostgresRow {
    var columns: Columns { Columns(row: makeRandomAccess()) }
}
