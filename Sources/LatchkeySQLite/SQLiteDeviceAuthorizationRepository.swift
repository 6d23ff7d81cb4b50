import Foundation
import GRDB
import LatchkeyCore

extension DeviceAuthorizationRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "device_authorizations"
}

// MARK: DeviceAuthorizationRepository
extension SQLiteRepositories {
    func insert(_ device: DeviceAuthorizationRecord) async throws -> Bool {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO device_authorizations (device_code_hash, user_code_hash, client_id, scope, interval_seconds, expires_at,
                                                   resource)
                VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """, arguments: [device.deviceCodeHash, device.userCodeHash, device.clientId, device.scope, device.intervalSeconds,
                                 device.expiresAt, device.resource])
            return db.changesCount > 0
        }
    }

    func deviceAuthorization(deviceCodeHash: Data) async throws -> DeviceAuthorizationRecord? {
        try await lookup { try $0.one(DeviceAuthorizationRecord.self, "SELECT * FROM device_authorizations WHERE device_code_hash = ?", [deviceCodeHash]) }
    }

    func deviceAuthorization(userCodeHash: Data) async throws -> DeviceAuthorizationRecord? {
        try await lookup { try $0.one(DeviceAuthorizationRecord.self, "SELECT * FROM device_authorizations WHERE user_code_hash = ?", [userCodeHash]) }
    }

    func decide(userCodeHash: Data, _ decision: DeviceAuthorizationRecord.Decision, at now: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE device_authorizations SET decision = ? WHERE user_code_hash = ? AND decision IS NULL AND expires_at > ?",
                           arguments: [decision.rawValue, userCodeHash, now])
            return db.changesCount > 0
        }
    }

    func notePoll(deviceCodeHash: Data, at now: Date, intervalSeconds: Int) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE device_authorizations SET polled_at = ?, interval_seconds = ? WHERE device_code_hash = ?",
                           arguments: [now, intervalSeconds, deviceCodeHash])
        }
    }
}
