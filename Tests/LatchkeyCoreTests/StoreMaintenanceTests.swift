import Foundation
import Testing
@testable import LatchkeyCore

@Suite struct OutboxClaimTests {
    @Test func claimedMailIsNotClaimedAgainUntilItsLeaseEnds() async throws {
        let h = try await EngineHarness.make()
        let now = h.time.now()
        try await h.store.write { tx in
            for i in 0..<3 {
                try tx.enqueue(mail: OutboxRecord(id: nil, recipient: "r\(i)@example.com", subject: "s", kind: "sign_up_code", sealedBody: Data([1]),
                                                  status: .pending, attempts: 0, createdAt: now, nextAttemptAt: now, sentAt: nil, lastError: nil))
            }
        }
        let first = try await h.store.write { try $0.claimPendingMail(dueBy: now, limit: 2, leaseUntil: now + 300) }
        let second = try await h.store.write { try $0.claimPendingMail(dueBy: now, limit: 10, leaseUntil: now + 300) }
        let third = try await h.store.write { try $0.claimPendingMail(dueBy: now + 10, limit: 10, leaseUntil: now + 310) }
        let afterLease = try await h.store.write { try $0.claimPendingMail(dueBy: now + 301, limit: 10, leaseUntil: now + 600) }
        #expect(first.count == 2 && second.count == 1 && third.isEmpty && afterLease.count == 3)
        #expect(Set(first.compactMap(\.id)).isDisjoint(with: second.compactMap(\.id)))
    }
}

@Suite struct PurgeTests {
    @Test func purgeRemovesWhatOutlivedItsUse() async throws {
        let h = try await EngineHarness.make { $0.apps = [AppServicesApp(id: "a")]; $0.auditRetentionDays = 1; $0.sentMailRetentionDays = 1 }
        _ = try await h.signUp("keep@example.com")
        try await h.engine.register(appId: "a", email: "pending@example.com", password: "a-strong-passphrase", caller: h.caller)
        let tokens = try await h.engine.signInWithPassword(continuationToken: try await passwordToken(h, "keep@example.com"),
                                                           username: nil, password: "a-strong-passphrase", scope: nil, caller: h.caller)
        #expect(tokens.refreshToken != nil)
        _ = await h.engine.deliverPendingMail(via: h.transport, mailbox: nil)
        h.time.advance(seconds: 40 * 86400)  // past refresh tokens, links, pending users, sent mail and audit retention
        await h.engine.purgeExpiredState()
        #expect(try await h.store.read { try $0.user(email: "pending@example.com") } == nil)
        #expect(try await h.store.read { try $0.user(email: "keep@example.com") } != nil)
        #expect(try await h.store.read { try $0.auditEvents(since: .distantPast, limit: 10) }.isEmpty)
        #expect(try await h.store.read { try $0.mail(status: .sent, limit: 10) }.isEmpty)
        let hash = h.engine.secretHash(tokens.refreshToken!)
        #expect(try await h.store.read { try $0.refreshToken(tokenHash: hash) } == nil)
    }

    private func passwordToken(_ h: EngineHarness, _ email: String) async throws -> String {
        guard case .started(let ct) = try await h.engine.signInInitiate(username: email, challengeTypes: "oob password redirect", caller: h.caller),
              case .password(let ct2) = try await h.engine.signInChallenge(continuationToken: ct, challengeTypes: "oob password redirect", caller: h.caller)
        else { throw LatchkeyError.flowTokenInvalid }
        return ct2
    }
}
