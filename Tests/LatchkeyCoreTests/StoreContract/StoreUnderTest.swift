import Foundation
import Testing
@testable import LatchkeyCore
import LatchkeyStorage

/// The stores the contract suite runs on. Each is a real database: SQLite in a fresh file. Issue I adds
/// PostgreSQL as a second case here, and every contract test then runs on both.
enum StoreUnderTest: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite

    var testDescription: String { rawValue }

    /// A new, migrated, empty store. `sharing` opens a second handle on the same database (a second replica).
    func make(sharing other: (any Store)? = nil) async throws -> any Store {
        switch self {
        case .sqlite:
            let path = (other as? SQLiteStore)?.path
                ?? NSTemporaryDirectory() + "latchkey-contract-" + UUID().uuidString + "/db.sqlite"
            let store = try SQLiteStore(path: path, migrations: SQLMigrations.read(directory: EngineHarness.migrations))
            try store.migrate()
            return store
        }
    }
}

/// Rows the contract tests write.
enum Fixtures {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func user(email: String?, username: String? = nil, status: UserRecord.Status = .active) -> UserRecord {
        UserRecord(id: UUID().uuidString.lowercased(), email: email, username: username, passwordHash: nil, emailVerified: true,
                   status: status, attributes: [:], now: now)
    }

    static func flow(userId: String? = nil, tokenHash: Data = Data(SecureRandom.bytes(32))) -> FlowRecord {
        FlowRecord(id: UUID().uuidString.lowercased(), tokenHash: tokenHash, kind: .signIn, email: "f@example.com", userId: userId,
                   state: FlowState(stage: .started, clientId: "c", acceptsCode: true, acceptsPassword: true),
                   expiresAt: now + 600, createdAt: now)
    }

    static func mail(_ i: Int, due: Date = now) -> OutboxRecord {
        OutboxRecord(id: nil, recipient: "r\(i)@example.com", subject: "s", kind: "sign_up_code", sealedBody: Data([1]),
                     status: .pending, attempts: 0, createdAt: now, nextAttemptAt: due, sentAt: nil, lastError: nil)
    }

    static func session(userId: String, family: String = UUID().uuidString, parent: String? = nil) -> SessionRecord {
        SessionRecord(id: UUID().uuidString, familyId: family, userId: userId, kind: .native, audience: "c", scope: "openid",
                      tokenHash: Data(SecureRandom.bytes(32)), createdAt: now, expiresAt: now + 3600, parentId: parent)
    }

    /// Runs `body` `count` times at once and returns every outcome.
    static func race<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> T) async -> [Result<T, any Error>] {
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
