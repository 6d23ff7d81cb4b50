import Foundation

extension LatchkeyEngine {
    /// Takes one token from `rule`'s bucket for `subject`. Nil when allowed; otherwise the error to answer and
    /// whether this denial is the first of its window (the one worth an audit event). Per-IP buckets live in this
    /// process; per-address ones in the database (`buckets`), so every replica counts against the same one.
    private func rateCheck(_ rule: LimitSettings.Rule, _ subject: String?, buckets: any RateBucketRepository) async throws
        -> (LatchkeyError, Bool)? {
        guard settings.limits.enabled, let subject, !subject.isEmpty, let spec = settings.limits.rules[rule] else { return nil }
        let verdict = rule.isPerIP
            ? rateLimiter.take(RateLimitSubject.networks(of: subject).map { ("\(rule.rawValue)|\($0.key)", spec.scaled($0.factor)) },
                               now: time.now())
            : try await buckets.take(key: "\(rule.rawValue)|\(subject)", rule: spec, now: time.now())
        switch verdict {
        case .allowed: return nil
        case .denied(let retryAfter, let first):
            EngineMetrics.rateLimited(rule)
            return (.rateLimited(retryAfterSeconds: retryAfter, limit: rule), first)
        }
    }

    private func auditDenial(_ rule: LimitSettings.Rule, _ subject: String, caller: CallerInfo, in tx: any Repositories) async throws {
        let perAccount = rule == .codePerAccount || rule == .mailPerAddress
        try await audit(tx, "rate_limited", caller: caller, email: perAccount ? subject : nil, detail: rule.rawValue)
        logger.notice("rate limit hit", metadata: ["rule": "\(rule.rawValue)", "ip": "\(caller.ip ?? "-")"])
    }

    /// Outside a transaction: throws `.rateLimited` when over the limit.
    func limit(_ rule: LimitSettings.Rule, _ subject: String?, caller: CallerInfo) async throws {
        // A per-address bucket is a stand-alone write: its store failures are mapped like every other write's.
        guard let (error, first) = try await standaloneWrite({ try await self.rateCheck(rule, subject, buckets: $0.rateBuckets) })
        else { return }
        if first, let subject {
            try? await auditDenial(rule, subject, caller: caller, in: store.direct)
        }
        throw error
    }

    /// Inside a write transaction: returns the error for the caller to hand back after the commit
    /// (so the audit event lands even though the request fails).
    func limit(_ rule: LimitSettings.Rule, _ subject: String?, caller: CallerInfo, in tx: any Repositories) async throws -> LatchkeyError? {
        guard let (error, first) = try await rateCheck(rule, subject, buckets: tx.rateBuckets) else { return nil }
        if first, let subject { try await auditDenial(rule, subject, caller: caller, in: tx) }
        return error
    }

    /// Forgets rate-limit buckets that have long refilled; the background worker calls it on a timer.
    public func pruneRateLimits() { rateLimiter.prune(now: time.now()) }

    /// The delay a user must wait after `failures` consecutive wrong passwords (nil: none yet).
    func lockoutDelay(afterFailures failures: Int) -> Int? {
        let limits = settings.limits
        guard limits.enabled, failures >= limits.lockoutFreeAttempts else { return nil }
        let doublings = min(failures - limits.lockoutFreeAttempts, 20)
        return min(limits.lockoutMaxSeconds, limits.lockoutBaseSeconds << doublings)
    }
}
