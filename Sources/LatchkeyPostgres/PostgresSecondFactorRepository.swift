import Foundation
import LatchkeyCore
import PostgresNIO

extension SecondFactorRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(id: try row.value("id"), userId: try row.value("user_id"), kind: try row.value("kind"), target: try row.value("target"),
                  secret: try row.value("secret"), lastStep: try row.value("last_step"), createdAt: try row.value("created_at"))
    }
}

// MARK: SecondFactorRepository
extension PostgresRepositories {
    func secondFactors(userId: String) async throws -> [SecondFactorRecord] {
        try SecondFactorRecord.decode(try await rows("SELECT * FROM second_factors WHERE user_id = \(userId) ORDER BY created_at, id"))
    }

    func insert(_ factor: SecondFactorRecord) async throws {
        try await rows("""
            INSERT INTO second_factors (id, user_id, kind, target, secret, last_step, created_at)
            VALUES (\(factor.id), \(factor.userId), \(factor.kind.rawValue), \(factor.target), \(factor.secret), \(factor.lastStep),
                    \(factor.createdAt))
            """)
    }

    func deleteSecondFactors(userId: String, kinds: [SecondFactorRecord.Kind]) async throws -> Int {
        try await rows("""
            DELETE FROM second_factors WHERE user_id = \(userId) AND kind = ANY(\(kinds.map(\.rawValue))) RETURNING 1
            """).count
    }

    func acceptTOTPStep(factorId: String, step: Int) async throws -> Bool {
        !(try await rows("""
            UPDATE second_factors SET last_step = \(step)
            WHERE id = \(factorId) AND kind = 'totp' AND (last_step IS NULL OR last_step < \(step)) RETURNING 1
            """)).isEmpty
    }

    func redeemRecoveryCode(userId: String, codeHash: Data) async throws -> Bool {
        !(try await rows("""
            DELETE FROM second_factors WHERE user_id = \(userId) AND kind = 'recovery' AND secret = \(codeHash) RETURNING 1
            """)).isEmpty
    }
}
