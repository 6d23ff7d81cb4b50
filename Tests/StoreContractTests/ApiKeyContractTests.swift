import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// API keys on every `StoreUnderTest`: found by their HMAC, listed per owner and per app, disabled, deleted, and gone
/// with their account.
@Suite struct ApiKeyContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func keysRoundTripAndFollowTheirAccount(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let owner = Fixtures.user(email: "keys@example.com"), service = Fixtures.user(email: nil, username: "service")
        try await store.direct.users.insert(owner)
        try await store.direct.users.insert(service)
        let first = ApiKeyRecord(id: SecureRandom.bytes(12).hex, userId: owner.id, kind: .user, appId: "app", name: "one",
                                 keyHash: Data(SecureRandom.bytes(32)), createdAt: Fixtures.now)
        var second = first
        second.id = SecureRandom.bytes(12).hex; second.name = "two"; second.keyHash = Data(SecureRandom.bytes(32)); second.createdAt += 1
        let server = ApiKeyRecord(id: SecureRandom.bytes(12).hex, userId: service.id, kind: .server, appId: "app", name: "backend",
                                  keyHash: Data(SecureRandom.bytes(32)), createdAt: Fixtures.now)
        for key in [second, first, server] { try await store.direct.apiKeys.insert(key) }
        #expect(try await store.direct.apiKeys.apiKey(keyHash: first.keyHash) == first)
        #expect(try await store.direct.apiKeys.apiKey(id: server.id) == server)
        #expect(try await store.direct.apiKeys.apiKey(keyHash: Data(SecureRandom.bytes(32))) == nil)
        #expect(try await store.direct.apiKeys.apiKeys(userId: owner.id).map(\.name) == ["one", "two"])
        #expect(try await store.direct.apiKeys.serverApiKeys(appId: "app").map(\.id) == [server.id])
        #expect(try await store.direct.apiKeys.serverApiKeys(appId: "other").isEmpty)
        #expect(try await store.direct.apiKeys.setDisabled(apiKeyId: first.id, disabled: true))
        #expect(try await store.direct.apiKeys.apiKey(id: first.id)?.disabled == true)
        #expect(try await !store.direct.apiKeys.setDisabled(apiKeyId: "missing", disabled: true))
        #expect(try await store.direct.apiKeys.deleteApiKey(id: second.id))
        #expect(try await !store.direct.apiKeys.deleteApiKey(id: second.id))
        try await store.direct.users.delete(id: owner.id)
        #expect(try await store.direct.apiKeys.apiKeys(userId: owner.id).isEmpty)
        #expect(try await store.direct.apiKeys.apiKey(id: server.id) != nil)
    }
}
