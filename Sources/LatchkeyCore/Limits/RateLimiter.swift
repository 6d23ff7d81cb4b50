import Foundation

/// `capacity` requests per `periodSeconds`, refilled evenly (a token bucket).
public struct RateRule: Sendable, Equatable {
    public var capacity: Int
    public var periodSeconds: Int
    public init(_ capacity: Int, per periodSeconds: Int) { self.capacity = capacity; self.periodSeconds = periodSeconds }
    public var refillPerSecond: Double { Double(capacity) / Double(periodSeconds) }

    /// The same rate for a bucket that `factor` subjects share (an IPv6 /56 or /48 aggregate).
    func scaled(_ factor: Int) -> RateRule { RateRule(capacity * factor, per: periodSeconds) }
}

/// In-memory token buckets keyed by rule and subject (an IP network or a normalized email).
/// Per process: replicas behind a load balancer each keep their own (documented). Memory is bounded: keys live in two
/// generations of at most `maxKeys / 2` each; a key used is moved to the young one, and when the young one is full
/// the old one is dropped whole. So what is evicted is always the least recently used (O(1), never a scan under the
/// lock), and a client churning through new keys pushes out only keys idle longer than all of its own.
public final class RateLimiter: @unchecked Sendable {
    private struct Bucket { var tokens: Double; var updated: Date; var lastAudited: Date? }
    private let lock = NSLock()
    private var young: [String: Bucket] = [:]
    private var old: [String: Bucket] = [:]
    let maxKeys: Int

    public init(maxKeys: Int = 100_000) { self.maxKeys = max(2, maxKeys) }

    public enum Verdict: Equatable, Sendable { case allowed, denied(retryAfterSeconds: Int, firstInWindow: Bool) }

    public var count: Int { lock.withLock { young.count + old.count } }

    public func take(_ key: String, rule: RateRule, now: Date) -> Verdict { take([(key, rule)], now: now) }

    /// Takes a token from every bucket at once, or from none: a request is allowed only when each of its buckets (an
    /// address's own and its networks' aggregates) has one left. A denial names the longest wait among them.
    public func take(_ buckets: [(key: String, rule: RateRule)], now: Date) -> Verdict {
        lock.withLock {
            var current = buckets.map { key, rule -> Bucket in
                var bucket = fetch(key) ?? Bucket(tokens: Double(rule.capacity), updated: now)
                let elapsed = max(0, now.timeIntervalSince(bucket.updated))
                bucket.tokens = min(Double(rule.capacity), bucket.tokens + elapsed * rule.refillPerSecond)
                bucket.updated = now
                return bucket
            }
            defer { for (index, entry) in buckets.enumerated() { store(entry.key, current[index]) } }
            let empty = current.indices.filter { current[$0].tokens < 1 }
            guard !empty.isEmpty else {
                for index in current.indices { current[index].tokens -= 1 }
                return .allowed
            }
            // Audit a denial once a minute per key, not once per request, so a flood cannot flood the audit log.
            let first = empty[0]
            let audit = current[first].lastAudited.map { now.timeIntervalSince($0) > RateRule.auditQuietSeconds } ?? true
            if audit { current[first].lastAudited = now }
            let wait = empty.map { buckets[$0].rule.denial(tokens: current[$0].tokens, firstInWindow: audit) }
            return wait.max { $0.retryAfter < $1.retryAfter } ?? .allowed
        }
    }

    /// The bucket under `key`, moved to the young generation. Call with the lock held.
    private func fetch(_ key: String) -> Bucket? {
        if let bucket = young[key] { return bucket }
        return old.removeValue(forKey: key)
    }

    private func store(_ key: String, _ bucket: Bucket) {
        if young[key] == nil, young.count >= maxKeys / 2 {
            old = young
            young = [:]
            young.reserveCapacity(maxKeys / 2)
        }
        young[key] = bucket
    }

    /// Drops buckets untouched for `idleSeconds`: every rule's bucket has refilled by then, so they would
    /// start full anyway. Called by the background worker, not on the request path.
    public func prune(now: Date, idleSeconds: Double = 86400) {
        lock.withLock {
            young = young.filter { now.timeIntervalSince($0.value.updated) < idleSeconds }
            old = old.filter { now.timeIntervalSince($0.value.updated) < idleSeconds }
        }
    }
}

private extension RateLimiter.Verdict {
    var retryAfter: Int { if case .denied(let seconds, _) = self { seconds } else { 0 } }
}

/// The subjects a per-IP rule counts. IPv4: the address. IPv6: its /64 (one subscriber gets a whole /64, so a
/// per-/128 key lets one client rotate through billions of addresses), and the /56 and /48 around it at 4 and 16
/// times the allowance, so a client holding a whole /48 cannot multiply its allowance by 65,536 /64s.
public enum RateLimitSubject {
    /// Aggregate allowances: a /56 shares 4 × the rule, a /48 16 ×.
    public static let aggregates: [(prefixBits: Int, factor: Int)] = [(56, 4), (48, 16)]

    public static func network(of ip: String) -> String { networks(of: ip)[0].key }

    /// The address's own subject first, then its aggregates with their factors.
    public static func networks(of ip: String) -> [(key: String, factor: Int)] {
        var v6 = in6_addr()
        guard ip.contains(":"), inet_pton(AF_INET6, ip, &v6) == 1 else { return [(ip, 1)] }
        if ip.hasPrefix("::ffff:"), ip.contains(".") { return [(String(ip.dropFirst(7)), 1)] }  // IPv4-mapped
        let bytes = withUnsafeBytes(of: v6) { Array($0.prefix(8)) }
        func prefix(_ bits: Int) -> String {
            var masked = bytes
            for index in (bits / 8)..<8 { masked[index] = 0 }
            return stride(from: 0, to: 8, by: 2).map { String(format: "%x", UInt16(masked[$0]) << 8 | UInt16(masked[$0 + 1])) }
                .joined(separator: ":") + "::/\(bits)"
        }
        return [(prefix(64), 1)] + aggregates.map { (prefix($0.prefixBits), $0.factor) }
    }
}
