import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// The OpenID provider's rows on every `StoreUnderTest`: a code is redeemed once even when redemptions race (only
/// the winner's session and audit event written), and never after it expires; browser sessions are found by their cookie's HMAC, listed live, revoked once; the
/// families their codes started are found for sign-out; consents replace each other; all go with their account.
@Suite struct OpenIDContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func codesAreRedeemedOnceAndSessionsEndOnce(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "oidc@example.com")
        try await store.direct.users.insert(user)
        let repo = store.direct.openID
        let session = BrowserSessionRecord(id: SecureRandom.uuidString(), userId: user.id, tokenHash: Data(SecureRandom.bytes(32)),
                                           amr: "pwd otp mfa", authTime: Fixtures.now, expiresAt: Fixtures.now + 3600, ip: "203.0.113.9",
                                           userAgent: "tests")
        try await repo.insert(session)
        #expect(try await repo.browserSession(tokenHash: session.tokenHash) == session)
        #expect(try await repo.browserSession(tokenHash: Data(SecureRandom.bytes(32))) == nil)
        #expect(try await repo.browserSessions(userId: user.id, now: Fixtures.now).map(\.id) == [session.id])
        #expect(try await repo.browserSessions(userId: user.id, now: Fixtures.now + 3601).isEmpty)

        func code(expiresAt: Date) -> AuthorizationCodeRecord {
            AuthorizationCodeRecord(codeHash: Data(SecureRandom.bytes(32)), clientId: "c", userId: user.id, redirectUri: "https://app/cb",
                                    codeChallenge: "x", nonce: "n", scope: "openid", amr: "pwd", authTime: Fixtures.now,
                                    familyId: SecureRandom.uuidString(), browserSessionId: session.id, expiresAt: expiresAt)
        }
        let live = code(expiresAt: Fixtures.now + 60), expired = code(expiresAt: Fixtures.now - 1)
        try await repo.insert(live)
        try await repo.insert(expired)
        #expect(try await repo.tokenFamilies(browserSessionId: session.id).isEmpty)  // nothing redeemed yet
        let (read, account, signInLive) = try #require(try await repo.authorizationCodeWithUser(codeHash: live.codeHash, now: Fixtures.now))
        #expect(read == live && account.id == user.id && signInLive)
        #expect(try await repo.authorizationCodeWithUser(codeHash: Data(SecureRandom.bytes(32)), now: Fixtures.now) == nil)
        // Racing exchanges of one code: one redeems it, and only its session and audit event are written.
        let sessions = (0..<8).map { _ in
            var session = Fixtures.session(userId: user.id)
            session.familyId = live.familyId
            return session
        }
        let note = SignInWriteContractTests.note(user, kind: "token_issued", signIn: false)
        let winners = try await withThrowingTaskGroup(of: SessionRecord?.self) { group in
            for session in sessions {
                group.addTask {
                    try await store.direct.openID.redeemAuthorizationCode(codeHash: live.codeHash, at: Fixtures.now, opening: session, noting: note)
                        ? session : nil
                }
            }
            return try await group.reduce(into: [SessionRecord]()) { if let won = $1 { $0.append(won) } }
        }
        #expect(winners.count == 1)
        for session in sessions { #expect(try await store.direct.sessions.find(id: session.id) == winners.first.flatMap { $0.id == session.id ? $0 : nil }) }
        #expect(try await SignInWriteContractTests.events(store, userId: user.id).map(\.kind) == ["token_issued"])
        #expect(try await !repo.redeemAuthorizationCode(codeHash: expired.codeHash, at: Fixtures.now, opening: nil, noting: nil))
        #expect(try await !repo.redeemAuthorizationCode(codeHash: live.codeHash, at: Fixtures.now, opening: nil, noting: nil))
        #expect(try await repo.authorizationCode(codeHash: expired.codeHash)?.usedAt == nil)
        #expect(try await repo.authorizationCode(codeHash: live.codeHash)?.usedAt != nil)
        #expect(try await repo.tokenFamilies(browserSessionId: session.id) == [live.familyId])

        #expect(try await repo.raiseBrowserSession(id: session.id, tokenHash: Data("raised".utf8), amr: "pwd otp mfa"))
        let raised = try await repo.browserSession(tokenHash: Data("raised".utf8))
        #expect(raised?.id == session.id && raised?.amr == "pwd otp mfa" && raised?.authTime == session.authTime)
        #expect(try await repo.browserSession(tokenHash: session.tokenHash) == nil)
        #expect(try await repo.revokeBrowserSession(id: session.id, at: Fixtures.now))
        #expect(try await !repo.revokeBrowserSession(id: session.id, at: Fixtures.now))
        #expect(try await !repo.raiseBrowserSession(id: session.id, tokenHash: Data("again".utf8), amr: "pwd"))
        #expect(try await repo.browserSessions(userId: user.id, now: Fixtures.now).isEmpty)
        // A code from a signed-out browser session reads as such; one from no browser session always lives.
        #expect(try await repo.authorizationCodeWithUser(codeHash: live.codeHash, now: Fixtures.now)?.signInLive == false)
        var detached = code(expiresAt: Fixtures.now + 60)
        detached.browserSessionId = nil
        try await repo.insert(detached)
        #expect(try await repo.authorizationCodeWithUser(codeHash: detached.codeHash, now: Fixtures.now)?.signInLive == true)

        #expect(try await repo.consent(userId: user.id, clientId: "c") == nil)
        try await repo.saveConsent(ConsentRecord(userId: user.id, clientId: "c", scope: "openid", grantedAt: Fixtures.now))
        let wider = ConsentRecord(userId: user.id, clientId: "c", scope: "email openid", grantedAt: Fixtures.now + 5)
        try await repo.saveConsent(wider)
        #expect(try await repo.consent(userId: user.id, clientId: "c") == wider)
        #expect(try await repo.consents(userId: user.id) == [wider])
        #expect(try await repo.deleteConsent(userId: user.id, clientId: "c"))
        #expect(try await !repo.deleteConsent(userId: user.id, clientId: "c"))

        try await repo.saveConsent(wider)
        try await store.direct.users.delete(id: user.id)
        #expect(try await repo.browserSession(tokenHash: session.tokenHash) == nil)
        #expect(try await repo.authorizationCode(codeHash: live.codeHash) == nil)
        #expect(try await repo.consents(userId: user.id).isEmpty)
    }
}
