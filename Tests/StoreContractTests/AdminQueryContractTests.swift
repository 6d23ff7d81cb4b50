import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// The store queries behind the admin API: prefix search, keyset pagination, audit filters and outbox counts.
@Suite struct AdminQueryContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func prefixSearchAndKeysetPagination(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        var created: [UserRecord] = []
        for index in 0..<5 {
            // Two users share each creation time: the id breaks the tie, so no page repeats or skips one.
            var user = Fixtures.user(email: "page\(index)@example.com", username: index == 4 ? "Pager_Four" : nil)
            user.createdAt = Fixtures.now + Double(index / 2)
            try await store.direct.users.insert(user)
            created.append(user)
        }
        try await store.direct.users.insert(Fixtures.user(email: "other@example.com"))
        let expected = created.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map(\.id)

        var seen: [String] = []
        var after: UserCursor?
        while true {
            let page = try await store.direct.users.list(UserQuery(prefix: "page", after: after, limit: 2))
            seen += page.map(\.id)
            guard page.count == 2, let last = page.last else { break }
            after = UserCursor(createdAt: last.createdAt, id: last.id)
        }
        #expect(seen == expected)
        #expect(try await store.direct.users.count(UserQuery(prefix: "PAGE")) == 5)
        // The username matches case-folded, and LIKE's wildcards in the text match only themselves.
        #expect(try await store.direct.users.list(UserQuery(prefix: "pager_f")).map(\.id) == [created[4].id])
        #expect(try await store.direct.users.list(UserQuery(prefix: "page%")).isEmpty)
        #expect(try await store.direct.users.list(UserQuery(prefix: "pag_")).isEmpty)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func auditFiltersAndOutboxCounts(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        for (index, kindName) in ["sign_in", "admin.user_disabled", "sign_in", "sign_up"].enumerated() {
            try await store.direct.audit.append(AuditEvent(id: nil, at: Fixtures.now + Double(index), kind: kindName,
                                                           userId: index < 2 ? "u1" : "u2"))
        }
        let all = try await store.direct.audit.events(AuditQuery(since: .distantPast, limit: 10))
        #expect(all.map(\.kind) == ["sign_in", "admin.user_disabled", "sign_in", "sign_up"])
        #expect(try await store.direct.audit.events(AuditQuery(since: .distantPast, kind: "sign_in", limit: 10)).map(\.userId) == ["u1", "u2"])
        #expect(try await store.direct.audit.events(AuditQuery(since: .distantPast, userId: "u1", limit: 10)).map(\.kind)
                == ["sign_in", "admin.user_disabled"])
        #expect(try await store.direct.audit.events(AuditQuery(since: .distantPast, afterId: all[1].id, limit: 1)).map(\.kind) == ["sign_in"])

        for index in 0..<3 { try await store.direct.outbox.enqueue(Fixtures.mail(index)) }
        #expect(try await store.direct.outbox.count(status: .pending) == 3)
        #expect(try await store.direct.outbox.count(status: .failed) == 0)
    }
}
