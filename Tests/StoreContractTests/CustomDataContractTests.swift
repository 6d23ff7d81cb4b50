import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// Custom user data on every `StoreUnderTest`: one document per account and app, replaced whole, read back exactly
/// (nested values, large numbers, key order), removed on request and with its account.
@Suite struct CustomDataContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func documentsAreKeptPerAccountAndAppAndFollowTheirAccount(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let ada = Fixtures.user(email: "ada.customdata@example.com"), eve = Fixtures.user(email: "eve.customdata@example.com")
        try await store.direct.users.insert(ada)
        try await store.direct.users.insert(eve)
        let document: [String: JSONValue] = ["plan": "pro", "seats": .int(9_007_199_254_740_993), "tags": .array(["a", .null, .bool(true)]),
                                             "nested": .object(["$numberLong": "7"]), "ratio": .double(0.25)]
        #expect(try await store.direct.customData.customDocument(userId: ada.id, appId: "app") == nil)
        try await store.direct.customData.setCustomDocument(document, userId: ada.id, appId: "app", at: Fixtures.now)
        try await store.direct.customData.setCustomDocument(["other": "app"], userId: ada.id, appId: "second", at: Fixtures.now)
        try await store.direct.customData.setCustomDocument(["eve": .int(1)], userId: eve.id, appId: "app", at: Fixtures.now)
        #expect(try await store.direct.customData.customDocument(userId: ada.id, appId: "app") == document)
        // Replaced whole, inside a transaction as outside one.
        try await store.transaction { tx in try await tx.customData.setCustomDocument(["plan": "free"], userId: ada.id, appId: "app", at: Fixtures.now + 5) }
        #expect(try await store.direct.customData.customDocument(userId: ada.id, appId: "app") == ["plan": "free"])
        let listed = try await store.direct.customData.customDocuments(userIds: [ada.id, "nobody"])
        #expect(listed.map(\.appId) == ["app", "second"] && listed[0].updatedAt == Fixtures.now + 5)
        #expect(try await store.direct.customData.customDocuments(userIds: []).isEmpty)
        try await store.direct.customData.setCustomDocument(nil, userId: ada.id, appId: "second", at: Fixtures.now)
        #expect(try await store.direct.customData.customDocument(userId: ada.id, appId: "second") == nil)
        try await store.direct.users.delete(id: ada.id)
        #expect(try await store.direct.customData.customDocuments(userIds: [ada.id]).isEmpty)
        #expect(try await store.direct.customData.customDocument(userId: eve.id, appId: "app") == ["eve": .int(1)])
    }
}
