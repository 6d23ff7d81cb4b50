import Foundation

/// The audit trail, in the order events were appended.
public protocol AuditRepository: Sendable {
    func append(_ event: AuditEvent) async throws
    /// The events a query matches, in id order (newest first when the query asks).
    func events(_ query: AuditQuery) async throws -> [AuditEvent]
    /// How many events of each of `kinds` fell in each `bucketSeconds`-long slice of [since, until), by dialect: what
    /// the console's charts draw. Read from hourly counts the store keeps with every append (so every replica shows
    /// the same numbers, and a month costs a few hundred rows): `since`, `until` and the slice are whole hours.
    func tally(_ query: AuditTallyQuery) async throws -> [AuditTally]
}

/// Audit events at or after `since` (and before `until`), optionally of one kind, about one user or from one IP
/// address, after the event `afterId` or before `beforeId`; oldest first unless `newestFirst`.
public struct AuditQuery: Sendable, Equatable {
    public var since: Date
    public var until: Date?
    public var kind: String?
    public var userId: String?
    public var clientIp: String?
    public var afterId: Int64?
    public var beforeId: Int64?
    public var newestFirst = false
    public var limit: Int
    public init(since: Date, until: Date? = nil, kind: String? = nil, userId: String? = nil, clientIp: String? = nil,
                afterId: Int64? = nil, beforeId: Int64? = nil, newestFirst: Bool = false, limit: Int) {
        self.since = since; self.until = until; self.kind = kind; self.userId = userId; self.clientIp = clientIp
        self.afterId = afterId; self.beforeId = beforeId; self.newestFirst = newestFirst; self.limit = limit
    }
}

public struct AuditTallyQuery: Sendable, Equatable {
    public var since: Date
    public var until: Date
    public var bucketSeconds: Int
    public var kinds: [String]
    /// `since` and `until` are taken to the start of their hour, the slice to whole hours (at least one).
    public init(since: Date, until: Date, bucketSeconds: Int, kinds: [String]) {
        func hour(_ date: Date) -> Date { Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 3600).rounded(.down) * 3600) }
        self.since = hour(since); self.until = hour(until); self.bucketSeconds = max(bucketSeconds / 3600, 1) * 3600; self.kinds = kinds
    }

    public var firstHour: Int { Int(since.timeIntervalSince1970) / 3600 }
    public var endHour: Int { Int(until.timeIntervalSince1970) / 3600 }
    public var hoursPerBucket: Int { bucketSeconds / 3600 }
}

/// `count` events of `kind` through `dialect` (nil: not recorded) in slice `bucket` (0 is the one starting at `since`).
public struct AuditTally: Sendable, Equatable, Hashable {
    public var kind: String
    public var dialect: String?
    public var bucket: Int
    public var count: Int
    public init(kind: String, dialect: String?, bucket: Int, count: Int) {
        self.kind = kind; self.dialect = dialect; self.bucket = bucket; self.count = count
    }
}

extension AuditEvent {
    /// The hour an event is counted in (Unix time / 3600).
    public var hour: Int { Int((at.timeIntervalSince1970 / 3600).rounded(.down)) }
}

extension AuditRepository {
    public func events(since: Date, limit: Int) async throws -> [AuditEvent] { try await events(AuditQuery(since: since, limit: limit)) }
}
