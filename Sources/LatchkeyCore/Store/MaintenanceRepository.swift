import Foundation

/// The periodic sweep.
public protocol MaintenanceRepository: Sendable {
    /// Drops what has outlived its use, at most `limit` rows of each table per call, so one call is a short write
    /// that requests queue behind for milliseconds, not the whole backlog; returns how many rows went.
    func purge(_ cutoffs: PurgeCutoffs, limit: Int) async throws -> Int
    /// Test mode's wipe, in one write: every account and what it holds, every session, flow, code, mail, audit event
    /// and rate bucket (`keepAccounts`: only sessions, browser sessions, flows, codes and challenges). The server's
    /// keys, its values and the stored clients stay.
    func wipe(keepAccounts: Bool) async throws
}

/// The tables a wipe empties, children before parents: what `keepAccounts` keeps is after `sessionTables`.
public enum WipedTables {
    public static let sessionTables = ["otp_codes", "client_assertions", "flows", "passkey_challenges", "device_authorizations", "authorization_codes", "browser_sessions", "sessions"]
    public static let accountTables = ["action_tokens", "api_keys", "identities", "second_factors", "passkeys", "custom_data", "consents", "user_roles",
                                       "users", "outbox", "audit_events", "audit_counts", "rate_buckets"]
    public static func tables(keepAccounts: Bool) -> [String] { keepAccounts ? sessionTables : sessionTables + accountTables }
}
