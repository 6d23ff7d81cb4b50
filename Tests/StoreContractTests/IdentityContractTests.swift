import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// Identities on every `StoreUnderTest`: one account per `(provider, subject)` even when links race, one identity per
/// provider on an account, link order, unlinking, and the sweep of idle anonymous accounts.
@Suite struct IdentityContractTests {
    static func identity(_ provider: String, _ subject: String, _ userId: String, at offset: Double = 0) -> IdentityRecord {
        IdentityRecord(provider: provider, subject: subject, userId: userId, createdAt: Fixtures.now + offset)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func anIdentityBelongsToOneAccountEvenWhenLinksRace(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        var users: [UserRecord] = []
        for i in 0..<6 {
            let user = Fixtures.user(email: nil, username: "racer\(i)")
            try await store.direct.users.insert(user)
            users.append(user)
        }
        let ids = users.map(\.id)
        let links = await Fixtures.race(6) { i in
            try await store.transaction { tx in try await tx.identities.link(Self.identity("google", "sub-1", ids[i])) }
        }
        #expect(links.filter { if case .success = $0 { true } else { false } }.count == 1)
        for case .failure(let error) in links { #expect(error as? StoreConflict == .identityTaken) }
        let owner = try #require(try await store.direct.identities.identity(provider: "google", subject: "sub-1"))
        #expect(ids.contains(owner.userId))
        // The same subject at another provider is another identity.
        try await store.direct.identities.link(Self.identity("apple", "sub-1", ids[0]))
    }

    @Test(arguments: StoreUnderTest.allCases)
    func anAccountHasOneIdentityPerProviderListedInLinkOrder(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "links@example.com")
        try await store.direct.users.insert(user)
        try await store.direct.identities.link(contentsOf: [Self.identity("google", "g", user.id, at: 2),
                                                           Self.identity("anonymous", "a", user.id, at: 1)])
        await #expect(throws: StoreConflict.providerAlreadyLinked) {
            try await store.direct.identities.link(Self.identity("google", "g2", user.id, at: 3))
        }
        #expect(try await store.direct.identities.identities(userId: user.id).map(\.provider) == ["anonymous", "google"])
        #expect(try await store.direct.identities.identities(userIds: [user.id, "nobody"]).map(\.provider) == ["anonymous", "google"])
        #expect(try await store.direct.identities.identities(userIds: []).isEmpty)
        #expect(try await store.direct.identities.unlink(provider: "google", userId: user.id))
        #expect(try await !store.direct.identities.unlink(provider: "google", userId: user.id))
        #expect(try await store.direct.identities.identity(provider: "google", subject: "g") == nil)
        // Round trip: what was linked comes back as it was, with the address its issuer vouched for (or none).
        var later = Self.identity("apple", "x", user.id, at: 5)
        later.verifiedEmail = "links@example.com"
        try await store.direct.identities.link(later)
        #expect(try await store.direct.identities.identity(provider: "apple", subject: "x") == later)
        #expect(try await store.direct.identities.identity(provider: "anonymous", subject: "a")?.verifiedEmail == nil)
        try await store.direct.identities.touch(provider: "apple", subject: "x", at: Fixtures.now + 60)
        #expect(try await store.direct.identities.identity(provider: "apple", subject: "x")?.lastUsedAt == Fixtures.now + 60)
        // Deleting the account deletes its identities.
        try await store.direct.users.delete(id: user.id)
        #expect(try await store.direct.identities.identities(userId: user.id).isEmpty)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func theSweepRemovesOnlyIdleAnonymousAccounts(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        func anonymous(_ name: String, lastUsed: Double, extra: String? = nil, email: String? = nil) async throws -> UserRecord {
            let user = Fixtures.user(email: email, username: name)
            try await store.direct.users.insert(user)
            var record = Self.identity("anonymous", name, user.id)
            record.lastUsedAt = Fixtures.now + lastUsed
            try await store.direct.identities.link(record)
            if let extra { try await store.direct.identities.link(Self.identity(extra, name, user.id)) }
            return user
        }
        let idle = try await anonymous("idle", lastUsed: -100)
        let recent = try await anonymous("recent", lastUsed: 0)
        let upgraded = try await anonymous("upgraded", lastUsed: -100, extra: "google")
        let withAddress = try await anonymous("addressed", lastUsed: -100, email: "kept@example.com")
        var session = Fixtures.session(userId: idle.id)
        session.expiresAt = Fixtures.now + 3600
        try await store.direct.sessions.insert(session)
        let cutoff = Fixtures.now - 1
        let removed = try await store.direct.maintenance.purge(PurgeCutoffs(
            flowsExpiredBefore: cutoff, tokensExpiredBefore: cutoff, pendingUsersUpdatedBefore: cutoff, anonymousUsersIdleBefore: cutoff,
            sentMailBefore: cutoff, auditBefore: cutoff, rateBucketsIdleBefore: cutoff), limit: 100)
        #expect(removed == 1)
        #expect(try await store.direct.users.find(id: idle.id) == nil)
        #expect(try await store.direct.sessions.find(id: session.id) == nil)
        #expect(try await store.direct.identities.identity(provider: "anonymous", subject: "idle") == nil)
        for kept in [recent, upgraded, withAddress] { #expect(try await store.direct.users.find(id: kept.id) != nil) }
    }
}
