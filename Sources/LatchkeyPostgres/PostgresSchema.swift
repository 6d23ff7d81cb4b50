import Logging
import PostgresNIO

/// Applies `Migrations/postgres/NNNN_*.sql` in order, each once, under a session advisory lock: replicas starting
/// together queue on the lock, and the first applies what is missing while the others then find nothing to do.
enum PostgresSchema {
    /// Any constant both replicas agree on; it only has to differ from the operator's own advisory locks.
    static let migrationLock: Int64 = 0x4C61_7463_686B_6579  // "Latchkey"

    static func migrate(_ client: PostgresClient, migrations: [(version: String, sql: String)], logger: Logger) async throws {
        try await client.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(migrationLock))", logger: logger)
            do {
                try await connection.query("""
                    CREATE TABLE IF NOT EXISTS latchkey_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger)
                var applied = Set<String>()
                for try await version in try await connection.query("SELECT version FROM latchkey_migrations", logger: logger)
                    .decode(String.self) { applied.insert(version) }
                for migration in migrations where !applied.contains(migration.version) {
                    try await connection.withTransaction(logger: logger) { tx in
                        // A migration file holds several statements: the simple query protocol runs them all.
                        _ = try await tx.simpleQuery(migration.sql).get()
                        try await tx.query("INSERT INTO latchkey_migrations (version) VALUES (\(migration.version))", logger: logger)
                    }
                    logger.info("applied migration \(migration.version)")
                }
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
                throw error
            }
            try await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
        }
    }
}
