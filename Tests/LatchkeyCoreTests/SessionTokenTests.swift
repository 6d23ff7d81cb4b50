import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// Refresh tokens carry their issue time in front, and so do their stored keys (see `SessionTokens`).
@Suite struct SessionTokenTests {
    @Test func tokenAndKeyStartWithTheIssueTime() async throws {
        let h = try await EngineHarness.make()
        let at = Date(timeIntervalSince1970: 1_645_557_742.123)
        let (token, key) = h.engine.tokens.newSessionToken(at: at)
        #expect(token.utf8.count == Tokens.sessionTokenLength)
        let bytes = try #require(Base64URL.decode(token))
        #expect(bytes.count == 38)
        // 1645557742123 ms is 0x017f22e27a2b (RFC 9562 A.6: 1645557742000 is 0x017f22e279b0).
        let time: [UInt8] = [0x01, 0x7f, 0x22, 0xe2, 0x7a, 0x2b]
        #expect(Array(bytes.prefix(6)) == time)
        #expect(Array(key.prefix(6)) == time)
        #expect(key.dropFirst(6) == h.engine.secretHash(token))
        #expect(h.engine.tokens.sessionKey(token) == key)
    }

    /// What keeps index inserts on the last pages: keys of later tokens sort after earlier ones, byte for byte.
    @Test func laterKeysSortAfterEarlierOnes() async throws {
        let h = try await EngineHarness.make()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let keys = (0..<500).map { h.engine.tokens.newSessionToken(at: start + Double($0) * 0.002).key }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) })
    }

    /// A token that only looks like the current shape (altered time bytes, non-base64url) finds nothing.
    @Test func alteredTokensFindNothing() async throws {
        let h = try await EngineHarness.make()
        let done = try await h.signUp("t@example.com")
        let tokens = try await h.nativeAuthService.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil, caller: h.caller)
        let token = try #require(tokens.refreshToken)
        #expect(try await h.engine.tokens.findSession(token: token) != nil)
        var altered = Array(token)
        altered[2] = altered[2] == "A" ? "B" : "A"
        #expect(try await h.engine.tokens.findSession(token: String(altered)) == nil)
        #expect(try await h.engine.tokens.findSession(token: "!" + token.dropFirst()) == nil)
        #expect(try await h.engine.tokens.findSession(token: String(token.dropLast())) == nil)
    }

    /// Tokens issued before the time prefix (43 characters, stored under the bare HMAC) still refresh, into the new shape.
    @Test func tokensOfTheEarlierShapeStillRefresh() async throws {
        let h = try await EngineHarness.make()
        let done = try await h.signUp("old@example.com")
        _ = try await h.nativeAuthService.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil, caller: h.caller)
        let user = try #require(try await h.store.direct.users.find(email: "old@example.com"))
        let legacy = SecureRandom.token()
        #expect(legacy.utf8.count == 43)
        let now = h.time.now()
        try await h.store.direct.sessions.insert(SessionRecord(
            id: TimeOrderedID.make(at: now), familyId: SecureRandom.uuidString(), userId: user.id, kind: .native,
            audience: EngineHarness.client, scope: "openid profile offline_access", tokenHash: h.engine.secretHash(legacy),
            createdAt: now, expiresAt: now + 3600))
        let next = try await h.engine.tokens.refresh(refreshToken: legacy, scope: nil, caller: h.caller)
        let fresh = try #require(next.refreshToken)
        #expect(fresh.utf8.count == Tokens.sessionTokenLength)
        _ = try await h.engine.tokens.refresh(refreshToken: fresh, scope: nil, caller: h.caller)
        // The legacy token was rotated: past the grace window it is reuse, as for any token.
        h.time.advance(seconds: 60)
        await #expect(throws: LatchkeyError.refreshTokenInvalid) {
            _ = try await h.engine.tokens.refresh(refreshToken: legacy, scope: nil, caller: h.caller)
        }
    }
}
