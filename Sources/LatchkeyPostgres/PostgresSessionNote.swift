import LatchkeyCore
import PostgresNIO

/// A `SessionNote` written in the statement of the write it rides with (a session's insert, a passkey's use): one
/// round trip. The steps run in a fixed order, each reading the one before it (a data-modifying CTE nobody reads runs
/// in an order PostgreSQL does not promise, and did run the count before the account): the write itself, the browser
/// session a sign-in opens and its code, the account's last sign-in, the audit event, its hour's count. That is the
/// order a sign-in's transaction locks those rows in; taking the count's row first deadlocked racing first sign-ins
/// of one account.
extension PostgresRepositories {
    typealias Step = (inout PostgresQuery.StringInterpolation) throws -> Void

    /// `guardedBy`, a conditional step (an UPDATE that may change nothing), runs before everything else, and the rest
    /// writes only if it changed a row (`first` says so itself, through `Self.onlyIfGuarded`); the answer is whether
    /// it did, true without one.
    @discardableResult
    func write(_ note: SessionNote, guardedBy guardStep: Step? = nil, after first: Step? = nil) async throws -> Bool {
        let event = note.event
        let guarded = guardStep == nil ? "" : " AND EXISTS (SELECT 1 FROM guarded)"
        var q = PostgresQuery.StringInterpolation(literalCapacity: 1024, interpolationCount: 32)
        q.appendLiteral("WITH ")
        if let guardStep {
            q.appendLiteral("guarded AS (")
            try guardStep(&q)
            q.appendLiteral(" RETURNING 1), ")
        }
        if let first {
            q.appendLiteral("first AS (")
            try first(&q)
            q.appendLiteral(" RETURNING 1), ")
        }
        if let browser = note.browserSession {
            q.appendLiteral("browser AS (")
            try Self.appendInsert(browser, to: &q, condition: " WHERE true" + guarded + " RETURNING 1), ")
        }
        if let code = note.authorizationCode {
            q.appendLiteral("code AS (")
            try Self.appendInsert(code, to: &q, condition: " WHERE true" + guarded + " RETURNING 1), ")
        }
        q.appendLiteral("signed_in AS (UPDATE users SET last_login_at = ")
        q.appendInterpolation(event.at)
        q.appendLiteral(", failed_login_count = 0, locked_until = NULL WHERE ")
        q.appendInterpolation(note.signIn)
        q.appendLiteral(" AND id = ")
        q.appendInterpolation(event.userId)
        q.appendLiteral((first == nil ? "" : " AND (SELECT count(*) FROM first) >= 0")
                        + (note.browserSession == nil ? "" : " AND (SELECT count(*) FROM browser) >= 0")
                        + (note.authorizationCode == nil ? "" : " AND (SELECT count(*) FROM code) >= 0") + guarded + " RETURNING 1), ")
        q.appendLiteral("event AS (INSERT INTO audit_events (at, kind, user_id, email, client_ip, user_agent, detail, dialect, actor) SELECT ")
        q.appendInterpolation(event.at)
        for value in [event.kind, event.userId, event.email, event.clientIp, event.userAgent, event.detail, event.dialect, event.actor] {
            q.appendLiteral(", ")
            q.appendInterpolation(value)
        }
        q.appendLiteral(" FROM (SELECT count(*) FROM signed_in) AS after WHERE true" + guarded + " RETURNING 1) ")
        q.appendLiteral("INSERT INTO audit_counts (hour, kind, dialect, count) SELECT ")
        q.appendInterpolation(event.hour)
        q.appendLiteral(", ")
        q.appendInterpolation(event.kind)
        q.appendLiteral(", ")
        q.appendInterpolation(event.dialect ?? "")
        q.appendLiteral(", 1 FROM (SELECT count(*) AS written FROM event) AS after WHERE written > 0 "
                        + "ON CONFLICT (hour, kind, dialect) DO UPDATE SET count = audit_counts.count + 1 RETURNING 1")
        return !(try await rows(PostgresQuery(stringInterpolation: q))).isEmpty
    }

    /// The condition a step written after `guardedBy` adds so that it too writes only when the guard did.
    static let onlyIfGuarded = " WHERE EXISTS (SELECT 1 FROM guarded)"
}
