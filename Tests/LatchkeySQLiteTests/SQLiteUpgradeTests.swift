import Foundation
import GRDB
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore
import LatchkeySQLite

/// A database made before sessions and usernames (migrations 0001–0003) upgrades in place: App Services sessions
/// keep working under their new kind, users keep their rows, the email becomes optional, and every user gets a
/// Parse objectId.
@Suite struct SQLiteUpgradeTests {
    @Test func sessionsAndUsersSurviveTheUpgrade() async throws {
        let path = NSTemporaryDirectory() + "latchkey-upgrade-" + UUID().uuidString + "/db.sqlite"
        let all = try SQLMigrations.read(directory: EngineHarness.migrations)
        let old = try SQLiteStore(path: path, migrations: all.filter { $0.name < "0004" })
        try old.migrate()
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: """
                INSERT INTO users (id, email, status, created_at, updated_at) VALUES ('u1', 'old@example.com', 'active', '2026-01-01', '2026-01-01'),
                    ('u2', 'two@example.com', 'active', '2026-01-01', '2026-01-01');
                INSERT INTO refresh_tokens (id, family_id, user_id, client_id, scope, token_hash, created_at, expires_at)
                    VALUES ('s1', 's1', 'u1', 'app:my-app', 'app_services', x'01', '2026-01-01', '2999-01-01'),
                           ('s2', 'f2', 'u1', 'native-client', 'openid', x'02', '2026-01-01', '2999-01-01');
                """)
        }
        try queue.close()

        let store = try SQLiteStore(path: path, migrations: all)
        #expect(try store.migrate() == ["0004_sessions_and_usernames", "0005_parse_object_ids", "0006_rate_buckets", "0007_drop_parent_index", "0008_identities", "0009_api_keys", "0010_second_factors", "0011_openid", "0012_clients", "0013_console", "0014_outbox_claims", "0015_identity_verified_email", "0016_passkeys", "0017_session_origin", "0018_custom_data", "0019_device_authorizations", "0020_resources", "0021_client_assertions"])
        let objectIds = try [await store.direct.users.find(id: "u1"), await store.direct.users.find(id: "u2")].map { try #require($0).objectId }
        #expect(objectIds.allSatisfy { $0.count == 10 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        #expect(Set(objectIds).count == 2)
        let app = try #require(try await store.direct.sessions.find(tokenHash: Data([1])))
        #expect(app.kind == .appServices && app.audience == "my-app")
        let native = try #require(try await store.direct.sessions.find(tokenHash: Data([2])))
        #expect(native.kind == .native && native.audience == "native-client")
        #expect(try await store.direct.users.find(email: "old@example.com")?.id == "u1")
        // Foreign keys still point at the rebuilt users table: deleting the user takes its sessions.
        try await store.direct.users.delete(id: "u1")
        #expect(try await store.direct.sessions.find(tokenHash: Data([2])) == nil)
        try await store.direct.users.insert(Fixtures.user(email: nil, username: "no-mail"))
    }
}
