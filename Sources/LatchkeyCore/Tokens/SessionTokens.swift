import Foundation

/// Refresh tokens of native and App Services sessions, and the key each is stored and found under.
///
/// A token is 6 bytes of its issue time in Unix milliseconds, then 32 random bytes, in base64url (51 characters).
/// Its key is the same 6 bytes followed by the token's HMAC. The token index holds every token not yet purged; a key
/// that were only an HMAC would land on a random page of it, read from disk at millions of rows and written back
/// in the commit, once to store the token and again to find it. With the time in front, the keys of this minute
/// sit on the few pages the last commits dirtied, so issuing and finding a token stay flat as the table grows.
/// The time is no secret (the access token issued with it says the same); the 256 random bits are the token.
///
/// Tokens issued before this shape (43 characters, only random bytes) are still found, under their bare HMAC.
/// Parse session tokens keep Parse's own `r:` + 32 hex shape and their bare HMAC. App Services refresh tokens are
/// JWTs (`AppRefreshTokens`) whose `jti` is a token of this shape: their key is its time and the HMAC of the JWT.
extension Tokens {
    /// Base64url of 6 + 32 bytes, unpadded.
    static let sessionTokenLength = 51

    func newSessionToken(at now: Date) -> (token: String, key: Data) {
        var bytes = TimeOrderedID.millisecondBytes(now)
        bytes.append(contentsOf: SecureRandom.bytes(32))
        let token = Base64URL.encode(bytes)
        return (token, sessionKey(token))
    }

    /// The key a presented token is stored under; garbage yields a key nothing is stored under.
    func sessionKey(_ token: String) -> Data {
        sessionKey(token, prefix: Self.timePrefix(of: token) ?? keys.appRefreshTokens.jti(of: token).flatMap(Self.timePrefix(of:)))
    }

    func sessionKey(_ token: String, prefix: [UInt8]?) -> Data {
        guard let prefix else { return engine.secretHash(token) }
        var key = Data(prefix)
        key.append(engine.secretHash(token))
        return key
    }

    /// The session and user behind a presented refresh token, if any (no check of its state).
    func findSession(token: String) async throws -> (session: SessionRecord, user: UserRecord)? {
        guard token.utf8.count <= SecretToken.maxPresentedBytes else { return nil }
        return try await reader.sessions.findWithUser(tokenHash: sessionKey(token))
    }

    /// The time bytes of a token of the current shape; nil for older tokens and for anything else.
    static func timePrefix(of token: String) -> [UInt8]? {
        guard token.utf8.count == sessionTokenLength, let head = Base64URL.decode(token.prefix(8)) else { return nil }
        return head.count == TimeOrderedID.millisecondByteCount ? head : nil
    }

    /// Every session of the account, in every dialect, and its browser sessions at the hosted pages: what a new password,
    /// a disabled account or the operator's "revoke sessions" ends.
    func revokeEverySession(userId: String, at now: Date, in tx: any Repositories) async throws {
        try await tx.sessions.revoke(userId: userId, at: now)
        try await tx.openID.revokeBrowserSessions(userId: userId, at: now)
    }

    /// Ends a browser session and revokes the refresh tokens its codes gave every app (single logout).
    func endBrowserSession(_ session: BrowserSessionRecord, caller: CallerInfo) async throws {
        let now = time.now()
        try await transaction { tx in
            guard try await tx.openID.revokeBrowserSession(id: session.id, at: now) else { return }
            let families = try await tx.openID.tokenFamilies(browserSessionId: session.id)
            for family in families { try await tx.sessions.revoke(familyId: family, at: now) }
            try await self.audit(tx, "sign_out", caller: caller, userId: session.userId, detail: "browser session; \(families.count) token families")
        }
    }
}
