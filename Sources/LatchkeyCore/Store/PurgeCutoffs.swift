import Foundation

/// What the periodic sweep removes: everything older than its cutoff.
public struct PurgeCutoffs: Sendable {
    /// Flows and codes that expired before this (kept a while to answer `expired_token`).
    public var flowsExpiredBefore: Date
    /// Refresh tokens and link tokens that expired before this.
    public var tokensExpiredBefore: Date
    /// Pending (unconfirmed) accounts last touched before this: they no longer hold their address.
    public var pendingUsersUpdatedBefore: Date
    /// Anonymous accounts (no address, no password, no other identity) whose anonymous identity was last used
    /// before this, with all their data.
    public var anonymousUsersIdleBefore: Date
    /// Delivered mail rows sent before this.
    public var sentMailBefore: Date
    /// Audit events before this.
    public var auditBefore: Date
    /// Shared rate buckets last touched before this (full again by then).
    public var rateBucketsIdleBefore: Date
    /// Self-registered and metadata-document clients made (or fetched again) before this that no session holds.
    public var unusedClientsCreatedBefore: Date?

    public init(flowsExpiredBefore: Date, tokensExpiredBefore: Date, pendingUsersUpdatedBefore: Date, anonymousUsersIdleBefore: Date, sentMailBefore: Date,
                auditBefore: Date, rateBucketsIdleBefore: Date, unusedClientsCreatedBefore: Date? = nil) {
        self.flowsExpiredBefore = flowsExpiredBefore; self.tokensExpiredBefore = tokensExpiredBefore
        self.pendingUsersUpdatedBefore = pendingUsersUpdatedBefore
        self.anonymousUsersIdleBefore = anonymousUsersIdleBefore; self.sentMailBefore = sentMailBefore; self.auditBefore = auditBefore
        self.rateBucketsIdleBefore = rateBucketsIdleBefore; self.unusedClientsCreatedBefore = unusedClientsCreatedBefore
    }

    /// The stored clients that came by themselves, as their documents say (`ClientDocument.origin`).
    public static let unusedClientCondition = """
        (document LIKE '%"origin":"dynamic"%' OR document LIKE '%"origin":"metadata_document"%')
        AND NOT EXISTS (SELECT 1 FROM sessions WHERE sessions.audience = clients.id)
        AND NOT EXISTS (SELECT 1 FROM authorization_codes WHERE authorization_codes.client_id = clients.id)
        """
}
