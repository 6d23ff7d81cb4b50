import Foundation
import LatchkeyCore
import PostgresNIO

extension DeviceAuthorizationRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(deviceCodeHash: try row.value("device_code_hash"), userCodeHash: try row.value("user_code_hash"),
                  clientId: try row.value("client_id"), scope: try row.value("scope"), intervalSeconds: try row.value("interval_seconds"),
                  expiresAt: try row.value("expires_at"), polledAt: try row.value("polled_at"),
                  decision: (try row.value("decision", as: String?.self)).flatMap(Decision.init(rawValue:)),
                  resource: try row.value("resource"))
    }
}

// MARK: DeviceAuthorizationRepository
extension PostgresRepositories {
    func insert(_ device: DeviceAuthorizationRecord) async throws -> Bool {
        !(try await rows("""
            INSERT INTO device_authorizations (device_code_hash, user_code_hash, client_id, scope, interval_seconds, expires_at, resource)
            VALUES (\(device.deviceCodeHash), \(device.userCodeHash), \(device.clientId), \(device.scope), \(device.intervalSeconds),
                    \(device.expiresAt), \(device.resource))
            ON CONFLICT DO NOTHING RETURNING 1
            """)).isEmpty
    }

    func deviceAuthorization(deviceCodeHash: Data) async throws -> DeviceAuthorizationRecord? {
        try DeviceAuthorizationRecord.decode(try await rows("SELECT * FROM device_authorizations WHERE device_code_hash = \(deviceCodeHash)")).first
    }

    func deviceAuthorization(userCodeHash: Data) async throws -> DeviceAuthorizationRecord? {
        try DeviceAuthorizationRecord.decode(try await rows("SELECT * FROM device_authorizations WHERE user_code_hash = \(userCodeHash)")).first
    }

    func decide(userCodeHash: Data, _ decision: DeviceAuthorizationRecord.Decision, at now: Date) async throws -> Bool {
        !(try await rows("""
            UPDATE device_authorizations SET decision = \(decision.rawValue)
            WHERE user_code_hash = \(userCodeHash) AND decision IS NULL AND expires_at > \(now) RETURNING 1
            """)).isEmpty
    }

    func notePoll(deviceCodeHash: Data, at now: Date, intervalSeconds: Int) async throws {
        try await rows("""
            UPDATE device_authorizations SET polled_at = \(now), interval_seconds = \(intervalSeconds) WHERE device_code_hash = \(deviceCodeHash)
            """)
    }
}
