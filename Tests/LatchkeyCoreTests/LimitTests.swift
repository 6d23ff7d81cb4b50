import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

@Suite struct RateLimiterTests {
    @Test func tokenBucketRefillsEvenly() {
        let limiter = RateLimiter()
        let start = Date(timeIntervalSince1970: 1_000_000)
        let rule = RateRule(3, per: 60)
        for _ in 0..<3 { #expect(limiter.take("k", rule: rule, now: start) == .allowed) }
        #expect(limiter.take("k", rule: rule, now: start) == .denied(retryAfterSeconds: 20, firstInWindow: true))
        #expect(limiter.take("k", rule: rule, now: start + 1) == .denied(retryAfterSeconds: 19, firstInWindow: false))
        #expect(limiter.take("other", rule: rule, now: start) == .allowed)
        #expect(limiter.take("k", rule: rule, now: start + 20) == .allowed)
        #expect(limiter.take("k", rule: rule, now: start + 20) != .allowed)
    }

    /// At the key limit the least recently used buckets go, never one in use: a client churning through new keys
    /// cannot reset the bucket of a key that keeps being used (here an exhausted one, which would otherwise refill).
    @Test func evictionDropsTheLeastRecentlyUsedKeys() {
        let limiter = RateLimiter(maxKeys: 8)
        let start = Date(timeIntervalSince1970: 1_000_000)
        let rule = RateRule(1, per: 3600)
        #expect(limiter.take("busy", rule: rule, now: start) == .allowed)
        for index in 0..<100 {
            _ = limiter.take("churn-\(index)", rule: rule, now: start)
            #expect(limiter.take("busy", rule: rule, now: start) != .allowed)  // still exhausted: kept
        }
        #expect(limiter.count <= 8)
        // A key left alone while others churn is the one that goes: it starts full again.
        #expect(limiter.take("idle", rule: rule, now: start) == .allowed)
        for index in 0..<8 { _ = limiter.take("more-\(index)", rule: rule, now: start) }
        #expect(limiter.take("idle", rule: rule, now: start) == .allowed)
    }

    /// All buckets of a request or none: a denial by the /48 aggregate takes nothing from the /64's own bucket.
    @Test func aggregatesAreTakenAllOrNothing() {
        let limiter = RateLimiter()
        let start = Date(timeIntervalSince1970: 1_000_000)
        let own = RateRule(2, per: 3600), shared = RateRule(1, per: 3600)
        #expect(limiter.take([("a", own), ("net", shared)], now: start) == .allowed)
        #expect(limiter.take([("b", own), ("net", shared)], now: start) != .allowed)
        #expect(limiter.take([("b", own)], now: start) == .allowed)
        #expect(limiter.take([("b", own)], now: start) == .allowed)  // "b" lost nothing to the refused request
        #expect(RateLimitSubject.networks(of: "2001:db8:1:2ff::1").map(\.key)
                == ["2001:db8:1:2ff::/64", "2001:db8:1:200::/56", "2001:db8:1:0::/48"])
        #expect(RateLimitSubject.networks(of: "192.0.2.7").map(\.key) == ["192.0.2.7"])
    }
}

@Suite struct LockoutTests {
    @Test func delayDoublesAndIsCapped() async throws {
        let h = try await EngineHarness.make()
        #expect(h.engine.lockoutDelay(afterFailures: 4) == nil)
        #expect(h.engine.lockoutDelay(afterFailures: 5) == 30)
        #expect(h.engine.lockoutDelay(afterFailures: 6) == 60)
        #expect(h.engine.lockoutDelay(afterFailures: 9) == 480)
        #expect(h.engine.lockoutDelay(afterFailures: 10) == 900)
        #expect(h.engine.lockoutDelay(afterFailures: 100) == 900)
    }

    @Test func lockExpiresWithTheClock() async throws {
        let h = try await EngineHarness.make()
        let done = try await h.signUp("lock@example.com", password: "the right passphrase")
        _ = try await h.nativeAuthService.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil, caller: h.caller)
        func attempt(_ password: String) async throws -> SignInOutcome { try await h.passwordSignIn("lock@example.com", password) }
        for _ in 0..<5 { await #expect(throws: LatchkeyError.invalidCredentials) { _ = try await attempt("wrong one!") } }
        await #expect(throws: LatchkeyError.accountLocked(retryAfterSeconds: 30)) { _ = try await attempt("the right passphrase") }
        h.time.advance(seconds: 31)
        _ = try await attempt("the right passphrase")
    }
}
