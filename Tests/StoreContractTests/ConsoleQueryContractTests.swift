import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// The store queries behind the operator console, the same on SQLite and PostgreSQL: audit counts by time slice and
/// dialect, the audit filters it adds, a user's live sessions and mails, one mail retried, and search by id prefix.
@Suite struct ConsoleQueryContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func auditTalliesByKindDialectAndSlice(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let start = Fixtures.now
        let events: [(Double, String, String?)] = [
            (0, "sign_in", "native"), (10, "sign_in", "native"), (3599, "sign_in", "parse"), (3600, "sign_in", "native"),
            (7300, "sign_in_failed", "openid"), (7300, "sign_up", nil), (-1, "sign_in", "native"), (3 * 3600, "sign_in", "native"),
            (20, "token_issued", "native"),
        ]
        for (offset, kindName, dialect) in events {
            try await store.direct.audit.append(AuditEvent(id: nil, at: start + offset, kind: kindName, dialect: dialect))
        }
        let tallies = try await store.direct.audit.tally(AuditTallyQuery(since: start, until: start + 3 * 3600, bucketSeconds: 3600,
                                                                         kinds: ["sign_in", "sign_in_failed", "sign_up"]))
        #expect(Set(tallies) == [
            AuditTally(kind: "sign_in", dialect: "native", bucket: 0, count: 2), AuditTally(kind: "sign_in", dialect: "parse", bucket: 0, count: 1),
            AuditTally(kind: "sign_in", dialect: "native", bucket: 1, count: 1),
            AuditTally(kind: "sign_in_failed", dialect: "openid", bucket: 2, count: 1), AuditTally(kind: "sign_up", dialect: nil, bucket: 2, count: 1),
        ])
        #expect(try await store.direct.audit.tally(AuditTallyQuery(since: start, until: start + 60, bucketSeconds: 60, kinds: [])).isEmpty)
        // Day slices over the same hours; the counts go with the events the purge removes.
        let days = try await store.direct.audit.tally(AuditTallyQuery(since: start, until: start + 86_400, bucketSeconds: 86_400,
                                                                      kinds: ["sign_in"]))
        #expect(days.reduce(0) { $0 + $1.count } == 5)
        _ = try await store.direct.maintenance.purge(PurgeCutoffs(flowsExpiredBefore: .distantPast, tokensExpiredBefore: .distantPast,
                                                                  pendingUsersUpdatedBefore: .distantPast,
                                                                  anonymousUsersIdleBefore: .distantPast, sentMailBefore: .distantPast,
                                                                  auditBefore: start + 3600, rateBucketsIdleBefore: .distantPast),
                                                     limit: 1000)
        let left = try await store.direct.audit.tally(AuditTallyQuery(since: start - 3600, until: start + 86_400, bucketSeconds: 86_400,
                                                                       kinds: ["sign_in"]))
        #expect(left.reduce(0) { $0 + $1.count } == 2)  // the hours from start + 3600 on
    }

    @Test(arguments: StoreUnderTest.allCases)
    func auditFiltersByAddressTimeAndNewestFirst(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        for index in 0..<6 {
            try await store.direct.audit.append(AuditEvent(id: nil, at: Fixtures.now + Double(index * 60), kind: "sign_in",
                                                           clientIp: index % 2 == 0 ? "192.0.2.1" : "2001:db8::1", actor: index == 5 ? "console:a" : nil))
        }
        let newest = try await store.direct.audit.events(AuditQuery(since: .distantPast, newestFirst: true, limit: 3))
        #expect(newest.map(\.at) == [Fixtures.now + 300, Fixtures.now + 240, Fixtures.now + 180])
        #expect(newest.first?.actor == "console:a")
        let older = try await store.direct.audit.events(AuditQuery(since: .distantPast, beforeId: newest.last?.id, newestFirst: true, limit: 10))
        #expect(older.map(\.at) == [Fixtures.now + 120, Fixtures.now + 60, Fixtures.now])
        let fromOne = try await store.direct.audit.events(AuditQuery(since: Fixtures.now + 60, until: Fixtures.now + 240, clientIp: "192.0.2.1",
                                                                     limit: 10))
        #expect(fromOne.map(\.at) == [Fixtures.now + 120])
    }

    @Test(arguments: StoreUnderTest.allCases)
    func liveSessionsMailsByRecipientAndOneRetry(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "live@example.com")
        try await store.direct.users.insert(user)
        let live = Fixtures.session(userId: user.id)
        var revoked = Fixtures.session(userId: user.id)
        var expired = Fixtures.session(userId: user.id)
        expired.expiresAt = Fixtures.now - 1
        try await store.direct.sessions.insert(contentsOf: [live, revoked, expired])
        try await store.direct.sessions.revoke(familyId: revoked.familyId, at: Fixtures.now)
        revoked.revokedAt = Fixtures.now
        #expect(try await store.direct.sessions.live(userId: user.id, now: Fixtures.now).map(\.id) == [live.id])

        var failed = Fixtures.mail(1)
        failed.recipient = "live@example.com"
        try await store.direct.outbox.enqueue(failed)
        try await store.direct.outbox.enqueue(Fixtures.mail(2))
        let mine = try await store.direct.outbox.list(recipient: "live@example.com", limit: 10)
        #expect(mine.count == 1)
        guard var mail = mine.first, let id = mail.id else { Issue.record("the mail has no id"); return }
        #expect(try await store.direct.outbox.retry(id: id, now: Fixtures.now) == false)  // pending, not failed
        mail.status = .failed
        mail.attempts = 5
        mail.lastError = "550 mailbox unavailable"
        try await store.direct.outbox.update(mail)
        #expect(try await store.direct.outbox.find(id: id)?.lastError == "550 mailbox unavailable")
        #expect(try await store.direct.outbox.retry(id: id, now: Fixtures.now + 5) == true)
        let retried = try await store.direct.outbox.find(id: id)
        #expect(retried?.status == .pending && retried?.attempts == 0)
        #expect(try await store.direct.outbox.find(id: id + 1000) == nil)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func searchMatchesTheStartOfAnIdOrObjectId(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "someone@example.com")
        try await store.direct.users.insert(user)
        try await store.direct.users.insert(Fixtures.user(email: "other@example.com"))
        #expect(try await store.direct.users.list(UserQuery(prefix: String(user.id.prefix(8)))).map(\.id) == [user.id])
        #expect(try await store.direct.users.list(UserQuery(prefix: String(user.objectId.prefix(6)))).map(\.id).contains(user.id))
        #expect(try await store.direct.users.list(UserQuery(prefix: "SOMEONE@")).map(\.id) == [user.id])
        #expect(try await store.direct.users.list(UserQuery(prefix: "someone@example.com")).map(\.id) == [user.id])
        #expect(try await store.direct.users.list(UserQuery(prefix: "someone@example.comx")).isEmpty)
    }
}

/// Roles given to accounts: given once, taken away, gone with the account.
@Suite struct RoleContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func rolesAreGivenOnceTakenAndGoWithTheAccount(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "op@example.com")
        try await store.direct.users.insert(user)
        let role = UserRole(userId: user.id, role: "operator", grantedAt: Fixtures.now)
        #expect(try await store.direct.users.grant(role))
        #expect(try await store.direct.users.grant(role) == false)
        #expect(try await store.direct.users.roles(userId: user.id) == [role])
        #expect(try await store.direct.users.revoke(role: "operator", userId: user.id))
        #expect(try await store.direct.users.revoke(role: "operator", userId: user.id) == false)
        #expect(try await store.direct.users.grant(role))
        try await store.direct.users.delete(id: user.id)
        #expect(try await store.direct.users.roles(userId: user.id).isEmpty)
    }
}
