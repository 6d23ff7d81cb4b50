import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// The device grant's requests on every `StoreUnderTest`: found by either code, a user code taken once, a decision
/// taken once and only before expiry, polls recorded with their interval, and the purge of expired ones.
@Suite struct DeviceAuthorizationContractTests {
    private func request(expiresAt: Date) -> DeviceAuthorizationRecord {
        DeviceAuthorizationRecord(deviceCodeHash: Data(SecureRandom.bytes(32)), userCodeHash: Data(SecureRandom.bytes(32)), clientId: "tv",
                                  scope: "openid offline_access", intervalSeconds: 5, expiresAt: expiresAt)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func aRequestIsFoundByEitherCodeAndDecidedOnce(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let repo = store.direct.devices
        let device = request(expiresAt: Fixtures.now + 600)
        #expect(try await repo.insert(device))
        var sameUserCode = request(expiresAt: Fixtures.now + 600)
        sameUserCode.userCodeHash = device.userCodeHash
        #expect(try await !repo.insert(sameUserCode))
        #expect(try await repo.deviceAuthorization(deviceCodeHash: device.deviceCodeHash) == device)
        #expect(try await repo.deviceAuthorization(userCodeHash: device.userCodeHash) == device)
        #expect(try await repo.deviceAuthorization(deviceCodeHash: sameUserCode.deviceCodeHash) == nil)

        try await repo.notePoll(deviceCodeHash: device.deviceCodeHash, at: Fixtures.now + 1, intervalSeconds: 10)
        let polled = try #require(try await repo.deviceAuthorization(deviceCodeHash: device.deviceCodeHash))
        #expect(polled.polledAt == Fixtures.now + 1 && polled.intervalSeconds == 10 && polled.decision == nil)

        #expect(try await !repo.decide(userCodeHash: device.userCodeHash, .approved, at: Fixtures.now + 600))  // expired by then
        #expect(try await repo.decide(userCodeHash: device.userCodeHash, .denied, at: Fixtures.now + 2))
        #expect(try await !repo.decide(userCodeHash: device.userCodeHash, .approved, at: Fixtures.now + 3))
        #expect(try await repo.deviceAuthorization(userCodeHash: device.userCodeHash)?.decision == .denied)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func expiredRequestsArePurged(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let old = request(expiresAt: Fixtures.now - 86_400 * 3), live = request(expiresAt: Fixtures.now + 600)
        #expect(try await store.direct.devices.insert(old))
        #expect(try await store.direct.devices.insert(live))
        let cutoff = Fixtures.now - 86_400
        _ = try await store.direct.maintenance.purge(PurgeCutoffs(
            flowsExpiredBefore: cutoff, tokensExpiredBefore: cutoff, pendingUsersUpdatedBefore: cutoff, anonymousUsersIdleBefore: cutoff,
            sentMailBefore: cutoff, auditBefore: cutoff, rateBucketsIdleBefore: cutoff), limit: 100)
        #expect(try await store.direct.devices.deviceAuthorization(deviceCodeHash: old.deviceCodeHash) == nil)
        #expect(try await store.direct.devices.deviceAuthorization(deviceCodeHash: live.deviceCodeHash) != nil)
    }
}
