import Foundation

/// Mailed link tokens (confirmation and reset): HMAC only, single use.
public protocol LinkTokenRepository: Sendable {
    /// Stores a link token, deleting the user's earlier tokens of the same kind.
    func replace(_ token: ActionTokenRecord) async throws
    func find(tokenId: String) async throws -> ActionTokenRecord?
    /// Deletes every outstanding link of the user (an address change or a disabled account ends them all).
    func deleteAll(userId: String) async throws
    /// Marks the token used if it is of `kind`, unused, unexpired and its hash matches, in one conditional write;
    /// returns its user's id, or nil. Two redemptions of one token: one wins.
    func redeem(tokenId: String, kind: ActionTokenRecord.Kind, tokenHash: Data, now: Date) async throws -> String?
}
