import Foundation

/// Link tokens for confirmation and reset mails: token = 256 random bits in hex, tokenId = 96 bits in hex
/// (the 24-hex shape of the hosted service's ObjectIds). Stored as an HMAC, single use, 30 minutes.
extension LatchkeyEngine {
    func issueLinkToken(_ kind: ActionTokenRecord.Kind, for user: UserRecord,
                        in tx: any Repositories) async throws -> (token: String, tokenId: String) {
        let token = SecureRandom.bytes(32).hex, tokenId = SecureRandom.bytes(12).hex
        let now = time.now()
        try await tx.linkTokens.replace(ActionTokenRecord(tokenId: tokenId, tokenHash: secretHash(token), kind: kind, userId: user.id,
                                                          expiresAt: now + Double(settings.linkTokenTTLSeconds), usedAt: nil,
                                                          createdAt: now))
        return (token, tokenId)
    }

    /// The user a link token was issued to; consumes it in one conditional write (two redemptions: one wins).
    func redeemLinkToken(_ kind: ActionTokenRecord.Kind, token: String?, tokenId: String?,
                         in tx: any Repositories) async throws -> UserRecord {
        let (token, tokenId) = try Self.requireLinkShape(token, tokenId)
        guard let userId = try await tx.linkTokens.redeem(tokenId: tokenId.lowercased(), kind: kind,
                                                          tokenHash: secretHash(token.lowercased()), now: time.now()),
              let user = try await tx.users.find(id: userId)
        else { throw LatchkeyError.linkTokenInvalid }
        return user
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
