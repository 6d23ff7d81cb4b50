import Foundation
import Logging
import PostgresNIO

/// Applies `Migrations/postgres/NNNN_*.sql` in order, each once, under a session advisory lock: replicas starting
/// together queue on the lock, and the first applies what is missing while the others then find nothing to do.
enum PostgresSchema {
    /// Any constant both replicas agree on; it only has to differ from the operator's own advisory locks.
    static let migrationLock: Int64 = 0x4C61_7463_686B_6579  // "Latchkey"

    /// Returns the names applied now.
    static func migrate(_ client: PostgresClient, migrations: [(name: String, text: String)], logger: Logger) async throws -> [String] {
        try await client.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(migrationLock))", logger: logger)
            do {
                let appliedNow = try await applyPending(on: connection, migrations: migrations, logger: logger)
                try await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
                return appliedNow
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
                throw error
            }
        }
    }

    /// A migration file's statements, one per `;` that ends a line; `--` comments dropped. (Each is sent as an
    /// extended-protocol query, which takes one statement; the files hold no function bodies.)
    static func statements(_ text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.range(of: "--").map { String(line[..<$0.lowerBound]) } ?? String(line)
        }
        var statements: [String] = [], current = ""
        for line in lines {
            current += line + "\n"
            if line.trimmingCharacters(in: .whitespaces).hasSuffix(";") {
                statements.append(current.trimmingCharacters(in: .whitespacesAndNewlines))
                current = ""
            }
        }
        let rest = current.trimmingCharacters(in: .whitespacesAndNewlines)
        return rest.isEmpty ? statements : statements + [rest]
    }

    private static func applyPending(on connection: PostgresConnection, migrations: [(name: String, text: String)],
                                     logger: Logger) async throws -> [String] {
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS latchkey_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
            """, logger: logger)
        var applied = Set<String>()
        for try await version in try await connection.query("SELECT version FROM latchkey_migrations", logger: logger)
            .decode(String.self) { applied.insert(version) }
        var appliedNow: [String] = []
        for migration in migrations where !applied.contains(migration.name) {
            try await PostgresRepositories.inTransaction(on: connection, logger: logger) { tx in
                for statement in statements(migration.text) { try await tx.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await tx.query("INSERT INTO latchkey_migrations (version) VALUES (\(migration.name))", logger: logger)
            }
            appliedNow.append(migration.name)
        }
        return appliedNow
    }
}
