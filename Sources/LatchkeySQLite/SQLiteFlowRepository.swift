import Foundation
import GRDB
import LatchkeyCore

// MARK: FlowRepository
extension SQLiteRepositories {
    func find(tokenHash: Data) async throws -> FlowRecord? {
        try await lookup { try $0.one(FlowRecord.self, "SELECT * FROM flows WHERE token_hash = ?", [tokenHash]) }
    }

    func insert(_ flow: FlowRecord) async throws { try await write { try flow.insert($0) } }

    func advance(_ flow: FlowRecord, from previousTokenHash: Data) async throws -> Bool {
        try await write { try $0.update(flow, key: "id", flow.id, if: "token_hash = ?", [previousTokenHash]) }
    }

    func complete(id: String, tokenHash: Data) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM flows WHERE id = ? AND token_hash = ?", arguments: [id, tokenHash])
            return db.changesCount == 1
        }
    }

    func saveCode(_ code: OTPRecord) async throws { try await write { try code.save($0) } }

    func redeemCode(flowId: String, codeHash: Data, now: Date) async throws -> CodeRedemption {
        try await write { db -> CodeRedemption in
            try db.execute(sql: "DELETE FROM otp_codes WHERE flow_id = ? AND code_hash = ? AND expires_at > ? AND attempts_left > 0",
                           arguments: [flowId, codeHash, now])
            if db.changesCount == 1 { return .redeemed }
            let left = try Int.fetchAll(db, sql: """
                UPDATE otp_codes SET attempts_left = attempts_left - 1
                WHERE flow_id = ? AND expires_at > ? AND attempts_left > 0 RETURNING attempts_left
                """, arguments: [flowId, now]).first
            if left == nil || left == 0 { try db.execute(sql: "DELETE FROM otp_codes WHERE flow_id = ?", arguments: [flowId]) }
            return left.map { .wrong(attemptsLeft: $0) } ?? .noLiveCode
        }
    }
}
