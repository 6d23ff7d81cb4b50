import Foundation

/// Token buckets kept in the database, for the limits that must hold across replicas (mails to one address,
/// code checks against one account). Per-IP buckets stay in memory (`RateLimiter`).
public protocol RateBucketRepository: Sendable {
    /// Takes one token from bucket `key` (`rule.capacity` when new, refilled evenly over `rule.periodSeconds`) in one
    /// conditional write, so parallel requests on any replica each count against the same bucket.
    func take(key: String, rule: RateRule, now: Date) async throws -> RateLimiter.Verdict
}

extension RateRule {
    /// What a bucket holding `tokens` (below one) answers: wait until one has refilled.
    public func denial(tokens: Double, firstInWindow: Bool) -> RateLimiter.Verdict {
        .denied(retryAfterSeconds: max(1, Int(((1 - tokens) / refillPerSecond).rounded(.up))), firstInWindow: firstInWindow)
    }

    /// How long a denied key stays quiet in the audit log: one event a minute, not one per request.
    public static let auditQuietSeconds: Double = 60
}
