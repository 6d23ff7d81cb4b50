import Foundation

/// Link tokens for confirmation and reset mails: token = 256 random bits in hex, tokenId = 96 bits in hex
/// (the 24-hex shape of the hosted service's ObjectIds). Stored as an HMAC, single use, 30 minutes.
///
/// A link is bound to the address it was mailed to: the stored HMAC covers the token and that address, so once the
/// account's address is another one the link matches nothing (and every change of address deletes the links too).
extension Proofs {
    func issueLinkToken(_ kind: ActionTokenRecord.Kind, for user: UserRecord,
                        in tx: any Repositories) async throws -> (token: String, tokenId: String) {
        let token = SecureRandom.bytes(32).hex, tokenId = SecureRandom.bytes(12).hex
        let now = time.now()
        try await tx.linkTokens.replace(ActionTokenRecord(tokenId: tokenId, tokenHash: linkHash(token, boundTo: user), kind: kind,
                                                          userId: user.id, expiresAt: now + Double(settings.linkTokenTTLSeconds),
                                                          usedAt: nil, createdAt: now))
        return (token, tokenId)
    }

    /// The stored form of a link token: an HMAC of the token with the address it goes to.
    func linkHash(_ token: String, boundTo user: UserRecord) -> Data {
        engine.secretHash(token.lowercased() + "\n" + (user.email ?? ""))
    }

    /// The user a link token was issued to, while the account still holds the address it was mailed to; consumes
    /// it in one conditional write (two redemptions: one wins).
    func redeemLinkToken(_ kind: ActionTokenRecord.Kind, token: String?, tokenId: String?,
                         in tx: any Repositories) async throws -> UserRecord {
        let (token, tokenId) = try Self.requireLinkShape(token, tokenId)
        guard let record = try await tx.linkTokens.find(tokenId: tokenId.lowercased()),
              let user = try await tx.users.find(id: record.userId),
              try await tx.linkTokens.redeem(tokenId: record.tokenId, kind: kind, tokenHash: linkHash(token, boundTo: user),
                                             now: time.now()) == user.id
        else { throw LatchkeyError.linkTokenInvalid }
        engine.mailComposer.capture?.linkUsed(tokenId: record.tokenId)
        return user
    }

    /// Whether a link would still be redeemed (read only: a page is shown only for a live one).
    func linkIsLive(_ kind: ActionTokenRecord.Kind, token: String, tokenId: String) async throws -> Bool {
        guard let record = try await reader.linkTokens.find(tokenId: tokenId.lowercased()), record.kind == kind,
              record.usedAt == nil, record.expiresAt > time.now(),
              let user = try await reader.users.find(id: record.userId) else { return false }
        return Digest.constantTimeEqual([UInt8](record.tokenHash), [UInt8](linkHash(token, boundTo: user)))
    }

    /// `<base>?token=…&tokenId=…` (or `&` when the base already has a query).
    func linkURL(_ base: String, token: String, tokenId: String) -> String {
        base + (base.contains("?") ? "&" : "?") + "token=\(token)&tokenId=\(tokenId)"
    }

    /// A token pair of the issued shape (64 + 24 hex), or `.linkTokenMalformed`.
    static func requireLinkShape(_ token: String?, _ tokenId: String?) throws -> (String, String) {
        guard let token, let tokenId, isHex(token, length: 64), isHex(tokenId, length: 24) else {
            throw LatchkeyError.linkTokenMalformed
        }
        return (token, tokenId)
    }

    static func isHex(_ s: String, length: Int) -> Bool { s.count == length && s.allSatisfy(\.isHexDigit) }
}
