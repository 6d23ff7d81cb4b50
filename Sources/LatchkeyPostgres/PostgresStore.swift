import Foundation
import LatchkeyCore
import Logging
import PostgresNIO

/// The store for several replicas on one PostgreSQL database (postgres-nio's pooled `PostgresClient`, no ORM).
/// Rules that must hold across replicas are single conditional statements or row-locked transactions in the
/// repositories; nothing is cached in the process.
public final class PostgresStore: Store {
    let client: PostgresClient
    let logger: Logger
    let migrations: [(name: String, text: String)]
    public let settings: PostgresSettings
    private let runner: Task<Void, Never>

    /// Starts the pool; connections open on first use, so an unreachable database fails the first query, not this.
    public init(settings: PostgresSettings, migrations: [(name: String, text: String)], logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        self.migrations = migrations.sorted { $0.name < $1.name }
        var poolLogger = logger
        // The pool's own messages are connection chatter, and a warning when the first query races `run()` starting
        // below (harmless: the lease waits). Failures that matter reach the engine as errors and are logged there.
        poolLogger.logLevel = max(logger.logLevel, .error)
        let client = PostgresClient(configuration: try settings.clientConfiguration(), backgroundLogger: poolLogger)
        self.client = client
        runner = Task { await client.run() }
    }

    deinit { runner.cancel() }

    /// Closes the pool's connections.
    public func shutdown() async {
        runner.cancel()
        await runner.value
    }

    /// Applies pending migrations under the advisory lock; returns the names applied now.
    @discardableResult
    public func migrate() async throws -> [String] {
        try await PostgresSchema.migrate(client, migrations: migrations, logger: logger)
    }

    /// The database answers within two seconds and every migration this binary knows is applied.
    public func isReady() async -> Bool {
        let names = migrations.map(\.name)
        let check: @Sendable () async throws -> Bool = { [client, logger] in
            let applied = try await client.withConnection { connection in
                try await connection.query("SELECT count(*) AS n FROM latchkey_migrations WHERE version = ANY(\(names))", logger: logger)
                    .collect().first?.columns.value("n", as: Int.self) ?? 0
            }
            return applied == names.count
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await check()) ?? false }
            group.addTask { try? await Task.sleep(for: .seconds(2)); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// True when no table holds a row (what `latchkey copy` requires of its target).
    public func isEmpty() async throws -> Bool {
        try await directRepositories.rows("""
            SELECT NOT (EXISTS (SELECT 1 FROM users) OR EXISTS (SELECT 1 FROM sessions) OR EXISTS (SELECT 1 FROM signing_keys)
                OR EXISTS (SELECT 1 FROM server_values) OR EXISTS (SELECT 1 FROM outbox) OR EXISTS (SELECT 1 FROM flows)
                OR EXISTS (SELECT 1 FROM clients)) AS empty
            """).first?.columns.value("empty", as: Bool.self) ?? false
    }

    var directRepositories: PostgresRepositories { PostgresRepositories(client: client, connection: nil, logger: logger) }

    public var direct: any Repositories { directRepositories }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        try await directRepositories.atomically(body)
    }
}
