import Foundation

/// `capacity` requests per `periodSeconds`, refilled evenly (a token bucket).
public struct RateRule: Sendable, Equatable {
    public var capacity: Int
    public var periodSeconds: Int
    public init(_ capacity: Int, per periodSeconds: Int) { self.capacity = capacity; self.periodSeconds = periodSeconds }
    public var refillPerSecond: Double { Double(capacity) / Double(periodSeconds) }
}

/// In-memory token buckets keyed by rule and subject (an IP network or a normalized email).
/// Per process: replicas behind a load balancer each keep their own (documented). Memory is bounded: at
/// `maxKeys` a new key evicts an arbitrary old one (O(1), never a scan under the lock); `prune` runs on a timer.
public final class RateLimiter: @unchecked Sendable {
    private struct Bucket { var tokens: Double; var updated: Date; var lastAudited: Date? }
    private let lock = NSLock()
    private var buckets: [String: Bucket] = [:]
    let maxKeys: Int

    public init(maxKeys: Int = 100_000) { self.maxKeys = maxKeys }

    public enum Verdict: Equatable, Sendable { case allowed, denied(retryAfterSeconds: Int, firstInWindow: Bool) }

    public var count: Int { lock.withLock { buckets.count } }

    public func take(_ key: String, rule: RateRule, now: Date) -> Verdict {
        lock.withLock {
            var bucket: Bucket
            if let existing = buckets[key] {
                bucket = existing
            } else {
                if buckets.count >= maxKeys { buckets.remove(at: buckets.startIndex) }
                bucket = Bucket(tokens: Double(rule.capacity), updated: now)
            }
            let elapsed = max(0, now.timeIntervalSince(bucket.updated))
            bucket.tokens = min(Double(rule.capacity), bucket.tokens + elapsed * rule.refillPerSecond)
            bucket.updated = now
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return .allowed
            }
            // Audit a denial once a minute per key, not once per request, so a flood cannot flood the audit log.
            let first = bucket.lastAudited.map { now.timeIntervalSince($0) > RateRule.auditQuietSeconds } ?? true
            if first { bucket.lastAudited = now }
            return rule.denial(tokens: bucket.tokens, firstInWindow: first)
        }
    }

    /// Drops buckets untouched for `idleSeconds`: every rule's bucket has refilled by then, so they would
    /// start full anyway. Called by the background worker, not on the request path.
    public func prune(now: Date, idleSeconds: Double = 86400) {
        lock.withLock { buckets = buckets.filter { now.timeIntervalSince($0.value.updated) < idleSeconds } }
    }
}

/// The subject a per-IP rule counts: the address itself for IPv4, its /64 network for IPv6 (one subscriber
/// gets a whole /64, so a per-/128 key lets one client rotate through billions of addresses).
public enum RateLimitSubject {
    public static func network(of ip: String) -> String {
        var v6 = in6_addr()
        guard ip.contains(":"), inet_pton(AF_INET6, ip, &v6) == 1 else { return ip }
        if ip.hasPrefix("::ffff:"), ip.contains(".") { return String(ip.dropFirst(7)) }  // IPv4-mapped
        let bytes = withUnsafeBytes(of: v6) { Array($0.prefix(8)) }
        return stride(from: 0, to: 8, by: 2).map { String(format: "%x", UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])) }
            .joined(separator: ":") + "::/64"
    }
}
