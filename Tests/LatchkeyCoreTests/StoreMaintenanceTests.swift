import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

@Suite struct PurgeTests {
    @Test func purgeRemovesWhatOutlivedItsUse() async throws {
        let h = try await EngineHarness.make { $0.apps = [AppServicesApp(id: "a")]; $0.auditRetentionDays = 1; $0.sentMailRetentionDays = 1 }
        _ = try await h.signUp("keep@example.com")
        try await h.appServicesService.register(appId: "a", email: "pending@example.com", password: "a-strong-passphrase", caller: h.caller)
        let tokens = try await h.nativeAuthService.signInWithPassword(continuationToken: try await passwordToken(h, "keep@example.com"),
                                                           username: nil, password: "a-strong-passphrase", scope: nil, caller: h.caller)
        #expect(tokens.refreshToken != nil)
        _ = await h.engine.deliverPendingMail(via: h.transport, mailbox: nil)
        h.time.advance(seconds: 40 * 86400)  // past refresh tokens, links, pending users, sent mail and audit retention
        await h.engine.purgeExpiredState()
        #expect(try await h.store.direct.users.find(email: "pending@example.com") == nil)
        #expect(try await h.store.direct.users.find(email: "keep@example.com") != nil)
        #expect(try await h.store.direct.audit.events(since: .distantPast, limit: 10).isEmpty)
        #expect(try await h.store.direct.outbox.list(status: .sent, limit: 10).isEmpty)
        let hash = h.engine.secretHash(tokens.refreshToken!)
        #expect(try await h.store.direct.sessions.find(tokenHash: hash) == nil)
    }

    /// The purge gives way to requests: a fiftieth of the writer while they use the store, a tenth while it is quiet
    /// (the outbox's poll, ten calls a second, is quiet); batches sized toward `PurgePace.target` within their bounds.
    @Test func purgePausesLongerWhileRequestsUseTheStore() {
        var pace = PurgePace()
        #expect(pace.next(took: .milliseconds(8), others: 10, over: .seconds(1)) == .milliseconds(72))
        #expect(pace.next(took: .milliseconds(8), others: 5000, over: .seconds(1)) == .milliseconds(392))
        #expect(pace.next(took: .milliseconds(8), others: UInt64(PurgePace.busyCallsPerSecond), over: .seconds(1)) == .milliseconds(392))
        #expect(pace.limit == PurgePace.batch.first)
        #expect(pace.next(took: .microseconds(100), others: 0, over: .seconds(1)) == PurgePace.shortestPause)
        #expect(pace.limit == PurgePace.batch.first * 2)
        for _ in 0..<20 { _ = pace.next(took: .milliseconds(50), others: 5000, over: .seconds(1)) }
        #expect(pace.limit == PurgePace.batch.least)
        for _ in 0..<20 { _ = pace.next(took: .milliseconds(1), others: 0, over: .seconds(1)) }
        #expect(pace.limit == PurgePace.batch.most)
    }

    private func passwordToken(_ h: EngineHarness, _ email: String) async throws -> String {
        guard case .started(let ct) = try await h.nativeAuthService.signInInitiate(username: email, challengeTypes: "oob password redirect", caller: h.caller),
              case .password(let ct2) = try await h.nativeAuthService.signInChallenge(continuationToken: ct, challengeTypes: "oob password redirect", caller: h.caller)
        else { throw LatchkeyError.flowTokenInvalid }
        return ct2
    }
}
