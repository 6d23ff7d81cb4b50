import Foundation
import Testing
@testable import LatchkeyCore
import LatchkeyPostgres
import LatchkeySQLite
import Logging
import PostgresNIO

/// The stores the contract suite runs on. Each is a real database: SQLite in a fresh file, PostgreSQL in a fresh
/// database of the cluster named by `LATCHKEY_TEST_POSTGRES_URL` (scripts/test.sh starts one). Without that
/// variable the PostgreSQL cases fail, saying so: they never skip.
public enum StoreUnderTest: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    public var testDescription: String { rawValue }

    /// A new, migrated, empty store. `sharing` opens a second handle on the same database (a second replica).
    public func make(sharing other: (any Store)? = nil) async throws -> any Store {
        switch self {
        case .sqlite:
            let path = (other as? SQLiteStore)?.path
                ?? NSTemporaryDirectory() + "latchkey-contract-" + UUID().uuidString + "/db.sqlite"
            let store = try SQLiteStore(path: path, migrations: SQLMigrations.read(directory: EngineHarness.migrations))
            try store.migrate()
            return store
        case .postgres:
            var settings = (other as? PostgresStore)?.settings
            if settings == nil { settings = try await TestCluster.shared.freshDatabase() }
            let store = try PostgresStore(settings: settings!, migrations: SQLMigrations.read(directory: EngineHarness.postgresMigrations),
                                          logger: Logger(label: "contract"))
            try await store.migrate()
            return store
        }
    }
}

/// The test cluster: one admin connection that makes an empty database per test.
public actor TestCluster {
    public static let shared = TestCluster()
    private var admin: (client: PostgresClient, settings: PostgresSettings)?

    public struct Missing: Error, CustomStringConvertible {
        public let description = "LATCHKEY_TEST_POSTGRES_URL is not set: run scripts/test.sh, or start a cluster with "
            + "`scripts/postgres-cluster.sh start` and export the URL it prints"
    }

    public func freshDatabase() async throws -> PostgresSettings {
        let admin = try connectAdmin()
        let name = "contract_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await admin.client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        var settings = admin.settings
        settings.database = name
        settings.poolSize = 8
        return settings
    }

    private func connectAdmin() throws -> (client: PostgresClient, settings: PostgresSettings) {
        if let admin { return admin }
        guard let url = ProcessInfo.processInfo.environment["LATCHKEY_TEST_POSTGRES_URL"] else { throw Missing() }
        let settings = try PostgresSettings(url: url, password: nil, tls: .disable)
        var configuration = PostgresClient.Configuration(host: settings.host, port: settings.port, username: settings.username,
                                                         password: nil, database: settings.database, tls: .disable)
        configuration.options.maximumConnections = 2
        // As PostgresStore's pool: errors only, not the warning that a first query raced `run()` starting (the lease waits).
        var logger = Logger(label: "test-cluster")
        logger.logLevel = .error
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        Task { await client.run() }  // lives as long as the test process
        admin = (client, settings)
        return (client, settings)
    }
}

/// Rows the contract tests write.
public enum Fixtures {
    public static let now = Date(timeIntervalSince1970: 1_800_000_000)

    public static func user(email: String?, username: String? = nil, status: UserRecord.Status = .active) -> UserRecord {
        UserRecord(id: UUID().uuidString.lowercased(), email: email, username: username, passwordHash: nil, emailVerified: true,
                   status: status, attributes: [:], now: now)
    }

    public static func flow(userId: String? = nil, tokenHash: Data = Data(SecureRandom.bytes(32))) -> FlowRecord {
        FlowRecord(id: UUID().uuidString.lowercased(), tokenHash: tokenHash, kind: .signIn, email: "f@example.com", userId: userId,
                   state: FlowState(stage: .started, client: JourneyClient(id: "c", acceptsCode: true, acceptsPassword: true), details: .signIn),
                   expiresAt: now + 600, createdAt: now)
    }

    public static func mail(_ i: Int, due: Date = now) -> OutboxRecord {
        OutboxRecord(id: nil, recipient: "r\(i)@example.com", subject: "s", kind: "sign_up_code", sealedBody: Data([1]),
                     status: .pending, attempts: 0, createdAt: now, nextAttemptAt: due, sentAt: nil, lastError: nil)
    }

    public static func session(userId: String, family: String = UUID().uuidString, parent: String? = nil) -> SessionRecord {
        SessionRecord(id: UUID().uuidString, familyId: family, userId: userId, kind: .native, audience: "c", scope: "openid",
                      tokenHash: Data(SecureRandom.bytes(32)), createdAt: now, expiresAt: now + 3600, parentId: parent)
    }

    /// Runs `body` `count` times at once and returns every outcome.
    public static func race<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> T) async -> [Result<T, any Error>] {
        await withTaskGroup(of: Result<T, any Error>.self) { group in
            for i in 0..<count {
                group.addTask {
                    do { return .success(try await body(i)) } catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }
}
