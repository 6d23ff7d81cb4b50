import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// Passkeys on every `StoreUnderTest`: one credential id across the deployment even under racing registrations, the
/// counter and clone flag, rename and delete by their owner only, gone with their account; challenges taken once
/// while live.
@Suite struct PasskeyContractTests {
    static func passkey(_ userId: String, credential: Data = Data(SecureRandom.bytes(32)), name: String = "Laptop", at: Date = Fixtures.now) -> PasskeyRecord {
        PasskeyRecord(id: UUID().uuidString.lowercased(), userId: userId, credentialId: credential, userHandle: Data(SecureRandom.bytes(32)), publicKey: Data(SecureRandom.bytes(77)),
                      algorithm: -7, signCount: 3, name: name, aaguid: Data(repeating: 0xaa, count: 16), backupEligible: true, backedUp: false,
                      createdAt: at)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func passkeysRoundTripStayUniqueAndFollowTheirAccount(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let ada = Fixtures.user(email: "ada.passkeys@example.com"), eve = Fixtures.user(email: "eve.passkeys@example.com")
        try await store.direct.users.insert(ada)
        try await store.direct.users.insert(eve)
        let first = Self.passkey(ada.id), second = Self.passkey(ada.id, name: "Phone", at: Fixtures.now + 1)
        try await store.direct.passkeys.insert(second)
        try await store.direct.passkeys.insert(first)
        #expect(try await store.direct.passkeys.passkey(credentialId: first.credentialId) == first)
        #expect(try await store.direct.passkeys.passkeys(userId: ada.id).map(\.name) == ["Laptop", "Phone"])
        #expect(try await store.direct.passkeys.passkeys(userIds: [ada.id, eve.id, "nobody"]).map(\.name) == ["Laptop", "Phone"])
        #expect(try await store.direct.passkeys.passkeys(userIds: []).isEmpty)

        // One credential id, registered by racing requests for two accounts: exactly one wins.
        let contested = Data(SecureRandom.bytes(32))
        let race = await Fixtures.race(8) { i in try await store.direct.passkeys.insert(Self.passkey(i % 2 == 0 ? ada.id : eve.id, credential: contested, name: "Raced")) }
        #expect(race.filter { (try? $0.get()) != nil }.count == 1)
        #expect(race.allSatisfy { if case .failure(let e) = $0 { return e as? StoreConflict == .credentialTaken }; return true })

        #expect(try await store.direct.passkeys.recordUse(id: first.id, signCount: 9, backedUp: true, at: Fixtures.now + 60))
        let used = try #require(try await store.direct.passkeys.passkey(credentialId: first.credentialId))
        #expect(used.signCount == 9 && used.backedUp && used.lastUsedAt == Fixtures.now + 60)
        #expect(try await store.direct.passkeys.flagClone(id: first.id, at: Fixtures.now + 61))
        #expect(try await !store.direct.passkeys.flagClone(id: first.id, at: Fixtures.now + 62))
        #expect(try await store.direct.passkeys.passkey(credentialId: first.credentialId)?.cloneFlaggedAt == Fixtures.now + 61)
        // Only the owner renames or removes.
        #expect(try await !store.direct.passkeys.renamePasskey(id: first.id, userId: eve.id, name: "Mine"))
        #expect(try await store.direct.passkeys.renamePasskey(id: first.id, userId: ada.id, name: "Work laptop"))
        #expect(try await !store.direct.passkeys.deletePasskey(id: second.id, userId: eve.id))
        #expect(try await store.direct.passkeys.deletePasskey(id: second.id, userId: ada.id))
        #expect(try await store.direct.passkeys.passkeys(userId: ada.id).map(\.name).filter { $0 != "Raced" } == ["Work laptop"])
        try await store.direct.users.delete(id: ada.id)
        #expect(try await store.direct.passkeys.passkey(credentialId: first.credentialId) == nil)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func aChallengeIsTakenOnceWhileLive(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let live = PasskeyChallengeRecord(challengeHash: Data(SecureRandom.bytes(32)), purpose: .authentication, userId: nil,
                                          visitHash: Data(SecureRandom.bytes(32)), expiresAt: Fixtures.now + 300)
        let stale = PasskeyChallengeRecord(challengeHash: Data(SecureRandom.bytes(32)), purpose: .authentication, userId: nil,
                                           visitHash: Data(SecureRandom.bytes(32)), expiresAt: Fixtures.now - 1)
        try await store.direct.passkeys.saveChallenge(live)
        try await store.direct.passkeys.saveChallenge(stale)
        let takes = await Fixtures.race(6) { _ in try await store.direct.passkeys.takeChallenge(hash: live.challengeHash, now: Fixtures.now) }
        #expect(takes.compactMap { try? $0.get() }.compactMap { $0 } == [live])
        #expect(try await store.direct.passkeys.takeChallenge(hash: stale.challengeHash, now: Fixtures.now) == nil)
    }
}
