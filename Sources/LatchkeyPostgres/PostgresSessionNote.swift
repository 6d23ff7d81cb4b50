import LatchkeyCore
import PostgresNIO

/// A `SessionNote` written in the statement of the write it rides with (a session's insert, a passkey's use): one
/// round trip. The steps run in a fixed order, each reading the one before it (a data-modifying CTE nobody reads runs
/// in an order PostgreSQL does not promise, and did run the count before the account): the write itself, the account's
/// last sign-in, the audit event, its hour's count. That is the order a sign-in's transaction locks those rows in;
/// taking the count's row first deadlocked racing first sign-ins of one account.
extension PostgresRepositories {
    func write(_ note: SessionNote, after first: ((inout PostgresQuery.StringInterpolation) throws -> Void)? = nil) async throws {
        let event = note.event
        var q = PostgresQuery.StringInterpolation(literalCapacity: 1024, interpolationCount: 32)
        q.appendLiteral("WITH ")
        if let first {
            q.appendLiteral("first AS (")
            try first(&q)
            q.appendLiteral(" RETURNING 1), ")
        }
        q.appendLiteral("signed_in AS (UPDATE users SET last_login_at = ")
        q.appendInterpolation(event.at)
        q.appendLiteral(", failed_login_count = 0, locked_until = NULL WHERE ")
        q.appendInterpolation(note.signIn)
        q.appendLiteral(" AND id = ")
        q.appendInterpolation(event.userId)
        q.appendLiteral(first == nil ? " RETURNING 1), " : " AND (SELECT count(*) FROM first) >= 0 RETURNING 1), ")
        q.appendLiteral("event AS (INSERT INTO audit_events (at, kind, user_id, email, client_ip, user_agent, detail, dialect, actor) SELECT ")
        q.appendInterpolation(event.at)
        for value in [event.kind, event.userId, event.email, event.clientIp, event.userAgent, event.detail, event.dialect, event.actor] {
            q.appendLiteral(", ")
            q.appendInterpolation(value)
        }
        q.appendLiteral(" FROM (SELECT count(*) FROM signed_in) AS after RETURNING 1) ")
        q.appendLiteral("INSERT INTO audit_counts (hour, kind, dialect, count) SELECT ")
        q.appendInterpolation(event.hour)
        q.appendLiteral(", ")
        q.appendInterpolation(event.kind)
        q.appendLiteral(", ")
        q.appendInterpolation(event.dialect ?? "")
        q.appendLiteral(", 1 FROM (SELECT count(*) FROM event) AS after ON CONFLICT (hour, kind, dialect) DO UPDATE SET count = audit_counts.count + 1")
        try await rows(PostgresQuery(stringInterpolation: q))
    }
}
