import Foundation
import LatchkeyCore
import PostgresNIO

// MARK: FlowRepository
extension PostgresRepositories {
    func find(tokenHash: Data) async throws -> FlowRecord? {
        try FlowRecord.decodeFirst(try await rows("SELECT * FROM flows WHERE token_hash = \(tokenHash)"))
    }

    func insert(_ flow: FlowRecord) async throws {
        try await rows("""
            INSERT INTO flows (id, token_hash, kind, email, user_id, state, expires_at, created_at)
            VALUES (\(flow.id), \(flow.tokenHash), \(flow.kind.rawValue), \(flow.email), \(flow.userId), \(JSONB(flow.state)),
                    \(flow.expiresAt), \(flow.createdAt))
            """)
    }

    func advance(_ flow: FlowRecord, from previousTokenHash: Data) async throws -> Bool {
        try await !rows("""
            UPDATE flows SET token_hash = \(flow.tokenHash), kind = \(flow.kind.rawValue), email = \(flow.email),
                user_id = \(flow.userId), state = \(JSONB(flow.state)), expires_at = \(flow.expiresAt)
            WHERE id = \(flow.id) AND token_hash = \(previousTokenHash) RETURNING id
            """).isEmpty
    }

    func complete(id: String, tokenHash: Data) async throws -> Bool {
        try await !rows("DELETE FROM flows WHERE id = \(id) AND token_hash = \(tokenHash) RETURNING id").isEmpty
    }

    func saveCode(_ code: OTPRecord) async throws {
        try await rows("""
            INSERT INTO otp_codes (flow_id, code_hash, attempts_left, expires_at, created_at)
            VALUES (\(code.flowId), \(code.codeHash), \(code.attemptsLeft), \(code.expiresAt), \(code.createdAt))
            ON CONFLICT (flow_id) DO UPDATE SET code_hash = excluded.code_hash, attempts_left = excluded.attempts_left,
                expires_at = excluded.expires_at, created_at = excluded.created_at
            """)
    }

    /// The row lock taken by the first statement makes parallel guesses queue: a match is consumed once, and each
    /// miss costs its own attempt.
    func redeemCode(flowId: String, codeHash: Data, now: Date) async throws -> CodeRedemption {
        try await atomically { tx in
            let matched = try await tx.rows("""
                DELETE FROM otp_codes WHERE flow_id = \(flowId) AND code_hash = \(codeHash) AND expires_at > \(now)
                AND attempts_left > 0 RETURNING flow_id
                """)
            if !matched.isEmpty { return .redeemed }
            let left = try await tx.rows("""
                UPDATE otp_codes SET attempts_left = attempts_left - 1
                WHERE flow_id = \(flowId) AND expires_at > \(now) AND attempts_left > 0 RETURNING attempts_left
                """).first?.columns.value("attempts_left", as: Int.self)
            if left == nil || left == 0 { try await tx.rows("DELETE FROM otp_codes WHERE flow_id = \(flowId)") }
            return left.map { .wrong(attemptsLeft: $0) } ?? .noLiveCode
        }
    }
}
