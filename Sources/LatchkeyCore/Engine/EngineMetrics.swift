import Metrics
import Synchronization

/// What the engine counts, through swift-metrics (the server bootstraps a Prometheus backend; without one these are
/// no-ops). Label values are small fixed sets: dialects, outcomes, rule names. Never an email, a path or an id.
enum EngineMetrics {
    static func signUp(_ dialect: CallerDialect) {
        counter(label: "latchkey_sign_ups_total", dimensions: [("dialect", dialect.rawValue)]).increment()
    }

    /// `outcome`: success, wrong_password, wrong_code, locked.
    static func signIn(_ dialect: CallerDialect, _ outcome: String) {
        counter(label: "latchkey_sign_ins_total", dimensions: [("dialect", dialect.rawValue), ("outcome", outcome)]).increment()
    }

    // The refresh grant is a hot path: its counters are made once, not looked up per request.
    static let refreshRotated = Counter(label: "latchkey_refreshes_total", dimensions: [("outcome", "rotated")])
    static let refreshRetried = Counter(label: "latchkey_refreshes_total", dimensions: [("outcome", "retry_in_grace")])
    static let refreshReused = Counter(label: "latchkey_refreshes_total", dimensions: [("outcome", "reuse_detected")])

    static func passwordReset(_ dialect: CallerDialect) {
        counter(label: "latchkey_password_resets_total", dimensions: [("dialect", dialect.rawValue)]).increment()
    }

    static let lockouts = Counter(label: "latchkey_lockouts_total")

    /// `event`: enrolled, removed, challenged, passed, failed, locked; `kind` when one factor is meant.
    static func secondFactor(_ event: String, _ kind: SecondFactorRecord.Kind?) {
        counter(label: "latchkey_second_factor_events_total", dimensions: [("event", event), ("kind", kind?.rawValue ?? "any")]).increment()
    }

    static func rateLimited(_ rule: LimitSettings.Rule) {
        counter(label: "latchkey_rate_limit_denials_total", dimensions: [("rule", rule.rawValue)]).increment()
    }

    static let databaseErrors = Counter(label: "latchkey_database_errors_total")
    /// Failed fetches of an OpenID issuer's keys (JWKS).
    static let keySetFetchFailures = Counter(label: "latchkey_jwks_fetch_failures_total")
    static let hashingQueueDepth = Gauge(label: "latchkey_hashing_queue_depth")
    static let hashingRejections = Counter(label: "latchkey_hashing_rejections_total")
    static let outboxPending = Gauge(label: "latchkey_outbox_pending")
    static let outboxFailed = Gauge(label: "latchkey_outbox_failed")
    static let adminActions = Counter(label: "latchkey_admin_actions_total")

    /// The labelled counters, each made once: making one is a lookup in the backend's registry under its lock with the
    /// labels rendered each time (about 8 µs, once per sign-in). The label sets are the small fixed ones above.
    private static let labelled = Mutex<[[String]: Counter]>([:])

    private static func counter(label: String, dimensions: [(String, String)]) -> Counter {
        let key = [label] + dimensions.flatMap { [$0.0, $0.1] }
        return labelled.withLock { counters in
            if let made = counters[key] { return made }
            let made = Counter(label: label, dimensions: dimensions)
            counters[key] = made
            return made
        }
    }
}
