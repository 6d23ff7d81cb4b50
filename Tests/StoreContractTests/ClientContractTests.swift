import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// Stored clients on every `StoreUnderTest`: listed in creation order, an id taken once, a secret replaced, deleted.
@Suite struct ClientContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func clientsRoundTripAndTheirIdsAreUnique(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let repo = store.direct.clients
        let first = ClientRecord(id: SecureRandom.uuidString(), name: "Dashboard", document: #"{"scopes":[]}"#,
                                 secretHash: Data(SecureRandom.bytes(32)), createdAt: Fixtures.now)
        let second = ClientRecord(id: SecureRandom.uuidString(), name: "Desktop", document: "{}", secretHash: nil, createdAt: Fixtures.now + 1)
        #expect(try await repo.insertClient(first))
        #expect(try await repo.insertClient(second))
        #expect(try await !repo.insertClient(ClientRecord(id: first.id, name: "again", document: "{}", secretHash: nil, createdAt: Fixtures.now)))
        #expect(try await repo.clients() == [first, second])
        let newHash = Data(SecureRandom.bytes(32))
        #expect(try await repo.setClientSecret(id: first.id, secretHash: newHash))
        #expect(try await !repo.setClientSecret(id: "nobody", secretHash: newHash))
        #expect(try await repo.clients().first?.secretHash == newHash)
        #expect(try await repo.deleteClient(id: second.id))
        #expect(try await !repo.deleteClient(id: second.id))
        #expect(try await repo.clients().map(\.id) == [first.id])
    }
}
