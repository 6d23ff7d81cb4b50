import Foundation

/// The console's first page: what happened over the last 24 hours and 30 days, counted from the audit trail by the
/// store (so every replica shows the same numbers), and whether the database, the mail relay and the keys are well.
public struct DeploymentOverview: Sendable {
    /// What the charts count: audit kinds, in the order they are drawn.
    public static let kinds = ["sign_up", "sign_in", "sign_in_failed", "lockout", "rate_limited"]

    public struct Window: Sendable {
        public var start: Date
        public var bucketSeconds: Int
        /// Kind -> one count per bucket, oldest first.
        public var counts: [String: [Int]]
        /// Sign-ins by dialect over the whole window: dialect -> (succeeded, failed). Events from before the
        /// dialect was recorded count under "unknown".
        public var signInsByDialect: [String: (succeeded: Int, failed: Int)]

        public func total(_ kind: String) -> Int { counts[kind]?.reduce(0, +) ?? 0 }
    }

    public var day: Window
    public var month: Window
    public var databaseReady: Bool
    public var mailPending: Int
    public var mailFailed: Int
    /// The relay's answer to the newest failed mail, and when the newest mail was delivered.
    public var lastMailError: String?
    public var lastMailSentAt: Date?
    /// The key that signs now, and when it was made.
    public var signingKeyCreatedAt: Date?
}

extension OperatorService {
    public func adminOverview() async throws -> DeploymentOverview {
        let now = time.now()
        let hour = (now.timeIntervalSince1970 / 3600).rounded(.down) * 3600
        let day = try await overviewWindow(start: Date(timeIntervalSince1970: hour - 23 * 3600), bucketSeconds: 3600, buckets: 24)
        let midnight = (now.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400
        let month = try await overviewWindow(start: Date(timeIntervalSince1970: midnight - 29 * 86_400), bucketSeconds: 86_400, buckets: 30)
        let outbox = reader.outbox
        return DeploymentOverview(
            day: day, month: month, databaseReady: await store.isReady(),
            mailPending: try await outbox.count(status: .pending), mailFailed: try await outbox.count(status: .failed),
            lastMailError: try await outbox.list(status: .failed, limit: 1).first?.lastError,
            lastMailSentAt: try await outbox.list(status: .sent, limit: 1).first?.sentAt,
            signingKeyCreatedAt: try await signingKeyInfo().first { $0.state == .signing }?.createdAt)
    }

    private func overviewWindow(start: Date, bucketSeconds: Int, buckets: Int) async throws -> DeploymentOverview.Window {
        let until = start + Double(bucketSeconds * buckets)
        let tallies = try await reader.audit.tally(AuditTallyQuery(since: start, until: until, bucketSeconds: bucketSeconds,
                                                                   kinds: DeploymentOverview.kinds))
        var counts = Dictionary(uniqueKeysWithValues: DeploymentOverview.kinds.map { ($0, Array(repeating: 0, count: buckets)) })
        var byDialect: [String: (succeeded: Int, failed: Int)] = [:]
        for tally in tallies where (0..<buckets).contains(tally.bucket) {
            counts[tally.kind]?[tally.bucket] += tally.count
            let dialect = tally.dialect ?? "unknown"
            if tally.kind == "sign_in" { byDialect[dialect, default: (0, 0)].succeeded += tally.count }
            if tally.kind == "sign_in_failed" { byDialect[dialect, default: (0, 0)].failed += tally.count }
        }
        return DeploymentOverview.Window(start: start, bucketSeconds: bucketSeconds, counts: counts, signInsByDialect: byDialect)
    }
}
