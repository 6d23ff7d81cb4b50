import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// The per-address limits every replica shares, on every `StoreUnderTest`.
@Suite struct RateBucketContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func parallelTakesOnTwoHandlesShareOneBucket(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let replica = try await kind.make(sharing: store)
        let rule = RateRule(5, per: 50)  // one token back every 10 s
        let outcomes = await Fixtures.race(16) { i in
            try await (i.isMultiple(of: 2) ? store : replica).direct.rateBuckets.take(key: "mail|a@example.com", rule: rule, now: Fixtures.now)
        }
        let verdicts = try outcomes.map { try $0.get() }
        #expect(verdicts.filter { $0 == .allowed }.count == 5)
        let denials = verdicts.compactMap { verdict -> (Int, Bool)? in
            if case .denied(let wait, let first) = verdict { return (wait, first) } else { return nil }
        }
        #expect(denials.count == 11 && denials.allSatisfy { $0.0 == 10 })
        #expect(denials.filter(\.1).count == 1)  // one audit-worthy denial per quiet minute
        // Another key has its own bucket; time refills this one, one token per 10 s.
        #expect(try await store.direct.rateBuckets.take(key: "mail|b@example.com", rule: rule, now: Fixtures.now) == .allowed)
        #expect(try await replica.direct.rateBuckets.take(key: "mail|a@example.com", rule: rule, now: Fixtures.now + 10) == .allowed)
        #expect(try await store.direct.rateBuckets.take(key: "mail|a@example.com", rule: rule, now: Fixtures.now + 10)
                == .denied(retryAfterSeconds: 10, firstInWindow: false))
        #expect(try await store.direct.rateBuckets.take(key: "mail|a@example.com", rule: rule, now: Fixtures.now + 75)
                == .allowed)
    }
}
