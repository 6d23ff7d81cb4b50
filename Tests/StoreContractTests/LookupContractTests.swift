import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// The lookups the Parse dialect needs (users by objectId, filtered pages of users, a user's live sessions), on
/// every `StoreUnderTest`.
@Suite struct LookupContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func usersAreFoundByObjectIdAndListedByIdentifier(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        var users: [UserRecord] = []
        for i in 0..<5 {
            var user = Fixtures.user(email: "u\(i)@example.com", username: "User\(i)")
            user.createdAt = Fixtures.now + Double(i)
            try await store.direct.users.insert(user)
            users.append(user)
        }
        #expect(try await store.direct.users.find(objectId: users[2].objectId)?.id == users[2].id)
        #expect(try await store.direct.users.find(objectId: "ZZZZZZZZZZ") == nil)
        #expect(try await store.direct.users.list(UserQuery(username: "USER3")).map(\.id) == [users[3].id])
        #expect(try await store.direct.users.list(UserQuery(email: "u4@example.com")).map(\.id) == [users[4].id])
        #expect(try await store.direct.users.list(UserQuery(username: "user3", email: "u4@example.com")).isEmpty)
        // Oldest first, skip then limit; the count ignores both.
        #expect(try await store.direct.users.list(UserQuery(limit: 2, skip: 1)).map(\.id) == [users[1].id, users[2].id])
        #expect(try await store.direct.users.count(UserQuery(limit: 2, skip: 1)) == 5)
        #expect(try await store.direct.users.count(UserQuery(email: "nobody@example.com")) == 0)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func liveSessionsLeaveOutRevokedExpiredAndOtherAudiences(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "s@example.com")
        try await store.direct.users.insert(user)
        func parse(_ audience: String, expires: Double) -> SessionRecord {
            var session = Fixtures.session(userId: user.id)
            session.kind = .parse
            session.audience = audience
            session.expiresAt = Fixtures.now + expires
            return session
        }
        let live = parse("app", expires: 60), revoked = parse("app", expires: 60), expired = parse("app", expires: -1)
        for session in [live, revoked, expired, parse("other", expires: 60), Fixtures.session(userId: user.id)] {
            try await store.direct.sessions.insert(session)
        }
        try await store.direct.sessions.revoke(familyId: revoked.familyId, at: Fixtures.now)
        #expect(try await store.direct.sessions.live(userId: user.id, kind: .parse, audience: "app", now: Fixtures.now).map(\.id) == [live.id])
        #expect(try await store.direct.sessions.find(id: expired.id)?.id == expired.id)
        #expect(try await store.direct.sessions.find(id: "missing") == nil)
    }
}
