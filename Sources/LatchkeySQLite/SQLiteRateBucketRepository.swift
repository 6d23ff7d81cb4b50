import Foundation
import GRDB
import LatchkeyCore

// MARK: RateBucketRepository
extension SQLiteRepositories {
    /// One upsert: a new key starts full less this token; an existing one refills for the time passed, then gives a
    /// token if it has one. The SET expressions all read the row as it was.
    func take(key: String, rule: RateRule, now: Date) async throws -> RateLimiter.Verdict {
        let at = now.timeIntervalSince1970
        let refilled = "min(:capacity, rate_buckets.tokens + max(0, :now - rate_buckets.updated_at) * :rate)"
        let quiet = "(rate_buckets.audited_at IS NULL OR :now - rate_buckets.audited_at > :quiet)"
        let result = try await write { db -> (tokens: Double, verdict: Int)? in
            try Row.fetchOne(db, sql: """
                INSERT INTO rate_buckets (key, tokens, verdict, updated_at) VALUES (:key, :capacity - 1, 0, :now)
                ON CONFLICT (key) DO UPDATE SET
                    tokens = CASE WHEN \(refilled) >= 1 THEN \(refilled) - 1 ELSE \(refilled) END,
                    verdict = CASE WHEN \(refilled) >= 1 THEN 0 WHEN \(quiet) THEN 2 ELSE 1 END,
                    audited_at = CASE WHEN \(refilled) < 1 AND \(quiet) THEN :now ELSE rate_buckets.audited_at END,
                    updated_at = :now
                RETURNING tokens, verdict
                """, arguments: ["key": key, "capacity": rule.capacity, "now": at, "rate": rule.refillPerSecond,
                                 "quiet": RateRule.auditQuietSeconds]).map { ($0["tokens"], $0["verdict"]) }
        }
        guard let result, result.verdict != 0 else { return .allowed }
        return rule.denial(tokens: result.tokens, firstInWindow: result.verdict == 2)
    }
}
