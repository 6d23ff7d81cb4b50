import Foundation
import GRDB
import LatchkeyCore

extension SecondFactorRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "second_factors"
}

// MARK: SecondFactorRepository
extension SQLiteRepositories {
    func secondFactors(userId: String) async throws -> [SecondFactorRecord] {
        try await read { try SecondFactorRecord.filter(Column("user_id") == userId).order(Column("created_at"), Column("id")).fetchAll($0) }
    }

    func insert(_ factor: SecondFactorRecord) async throws { try await write { try factor.insert($0) } }

    func deleteSecondFactors(userId: String, kinds: [SecondFactorRecord.Kind]) async throws -> Int {
        try await write { db in
            try SecondFactorRecord.filter(Column("user_id") == userId && kinds.map(\.rawValue).contains(Column("kind"))).deleteAll(db)
        }
    }

    func acceptTOTPStep(factorId: String, step: Int) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE second_factors SET last_step = ? WHERE id = ? AND kind = 'totp' AND (last_step IS NULL OR last_step < ?)",
                           arguments: [step, factorId, step])
            return db.changesCount > 0
        }
    }

    func redeemRecoveryCode(userId: String, codeHash: Data) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM second_factors WHERE user_id = ? AND kind = 'recovery' AND secret = ?",
                           arguments: [userId, codeHash])
            return db.changesCount > 0
        }
    }
}
