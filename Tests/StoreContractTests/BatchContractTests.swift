import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// The batch calls an import makes: one lookup of everything a batch names, one write of what it accepted, and a
/// write that fails as a whole when one row conflicts (inside a transaction nothing of it stays).
@Suite struct BatchContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func matchingFindsEachKindOfIdentifierOnce(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let byEmail = Fixtures.user(email: "batch-a@example.com")
        let byName = Fixtures.user(email: nil, username: "Batch_B")
        let byBoth = Fixtures.user(email: "batch-c@example.com", username: "batch_c")
        let other = Fixtures.user(email: "unrelated@example.com")
        try await store.direct.users.insert(contentsOf: [byEmail, byName, byBoth, other])

        let found = try await store.direct.users.matching(UserKeys(
            ids: ["no-such-id"], objectIds: [byBoth.objectId], emails: ["batch-a@example.com", "batch-c@example.com"],
            usernameKeys: ["batch_b", "batch_c"]))
        #expect(Set(found.map(\.id)) == [byEmail.id, byName.id, byBoth.id])
        #expect(found.count == 3)
        #expect(try await store.direct.users.matching(UserKeys()).isEmpty)
        #expect(try await store.direct.users.matching(UserKeys(ids: [other.id])).map(\.email) == ["unrelated@example.com"])
    }

    @Test(arguments: StoreUnderTest.allCases)
    func aConflictInABatchLeavesNothingOfIt(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        try await store.direct.users.insert(Fixtures.user(email: "held@example.com"))
        let fresh = Fixtures.user(email: "fresh@example.com")
        await #expect(throws: StoreConflict.emailTaken) {
            try await store.transaction { tx in
                try await tx.users.insert(contentsOf: [fresh, Fixtures.user(email: "held@example.com")])
            }
        }
        #expect(try await store.direct.users.find(email: "fresh@example.com") == nil)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func sessionsInABatchAndWhichAreStoredAlready(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "sessions-batch@example.com")
        try await store.direct.users.insert(user)
        let sessions = (0..<3).map { _ in Fixtures.session(userId: user.id) }
        try await store.transaction { tx in try await tx.sessions.insert(contentsOf: sessions) }
        #expect(try await store.direct.sessions.find(tokenHash: sessions[2].tokenHash)?.id == sessions[2].id)

        let unknown = Data(SecureRandom.bytes(32))
        let taken = try await store.direct.sessions.existing(ids: [sessions[0].id, "no-such-session"],
                                                            tokenHashes: [sessions[1].tokenHash, unknown])
        #expect(taken.ids == [sessions[0].id, sessions[1].id])
        #expect(taken.tokenHashes == [sessions[0].tokenHash, sessions[1].tokenHash])
        let none = try await store.direct.sessions.existing(ids: [], tokenHashes: [])
        #expect(none.ids.isEmpty && none.tokenHashes.isEmpty)
    }
}
