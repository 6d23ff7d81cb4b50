import Foundation

/// `capacity` requests per `periodSeconds`, refilled evenly (a token bucket).
public struct RateRule: Sendable, Equatable {
    public var capacity: Int
    public var periodSeconds: Int
    public init(_ capacity: Int, per periodSeconds: Int) { self.capacity = capacity; self.periodSeconds = periodSeconds }
    var refillPerSecond: Double { Double(capacity) / Double(periodSeconds) }
}

/// In-memory token buckets keyed by rule and subject (an IP or a normalized email).
/// Per process: replicas behind a load balancer each keep their own (documented).
public final class RateLimiter: @unchecked Sendable {
    private struct Bucket { var tokens: Double; var updated: Date; var lastAudited: Date? }
    private let lock = NSLock()
    private var buckets: [String: Bucket] = [:]
    private let maxKeys = 200_000

    public init() {}

    public enum Verdict: Equatable { case allowed, denied(retryAfterSeconds: Int, firstInWindow: Bool) }

    public func take(_ key: String, rule: RateRule, now: Date) -> Verdict {
        lock.withLock {
            var bucket = buckets[key] ?? Bucket(tokens: Double(rule.capacity), updated: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updated))
            bucket.tokens = min(Double(rule.capacity), bucket.tokens + elapsed * rule.refillPerSecond)
            bucket.updated = now
            defer { buckets[key] = bucket; if buckets.count > maxKeys { prune(now: now) } }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return .allowed
            }
            let wait = Int(((1 - bucket.tokens) / rule.refillPerSecond).rounded(.up))
            // Audit a denial once a minute per key, not once per request, so a flood cannot flood the audit log.
            let first = bucket.lastAudited.map { now.timeIntervalSince($0) > 60 } ?? true
            if first { bucket.lastAudited = now }
            return .denied(retryAfterSeconds: max(1, wait), firstInWindow: first)
        }
    }

    /// Drops buckets that refilled long ago; they would start full anyway.
    private func prune(now: Date) {
        buckets = buckets.filter { now.timeIntervalSince($0.value.updated) < 3600 }
    }
}
