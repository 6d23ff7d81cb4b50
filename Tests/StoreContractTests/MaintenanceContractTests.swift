import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// The periodic sweep and a whole user round trip, on every `StoreUnderTest`.
@Suite struct MaintenanceContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func purgeDropsOnlyWhatIsPastItsCutoff(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let keep = Fixtures.user(email: "keep@example.com")
        var stale = Fixtures.user(email: "stale@example.com", status: .pending)
        stale.updatedAt = Fixtures.now - 100
        try await store.direct.users.insert(keep)
        try await store.direct.users.insert(stale)
        var oldFlow = Fixtures.flow(userId: keep.id)
        oldFlow.expiresAt = Fixtures.now - 10
        try await store.direct.flows.insert(oldFlow)
        try await store.direct.flows.insert(Fixtures.flow(userId: keep.id))
        var oldSession = Fixtures.session(userId: keep.id)
        oldSession.expiresAt = Fixtures.now - 10
        try await store.direct.sessions.insert(oldSession)
        let liveSession = Fixtures.session(userId: keep.id)
        try await store.direct.sessions.insert(liveSession)
        var sent = Fixtures.mail(1)
        sent.status = .sent
        sent.sentAt = Fixtures.now - 10
        try await store.direct.outbox.enqueue(sent)
        try await store.direct.outbox.enqueue(Fixtures.mail(2))
        try await store.direct.audit.append(AuditEvent(id: nil, at: Fixtures.now - 10, kind: "old"))
        try await store.direct.audit.append(AuditEvent(id: nil, at: Fixtures.now, kind: "new"))

        let cutoff = Fixtures.now - 1
        let removed = try await store.direct.maintenance.purge(PurgeCutoffs(
            flowsExpiredBefore: cutoff, tokensExpiredBefore: cutoff, pendingUsersUpdatedBefore: cutoff, anonymousUsersIdleBefore: cutoff, sentMailBefore: cutoff,
            auditBefore: cutoff, rateBucketsIdleBefore: cutoff), limit: 100)
        #expect(removed == 5)  // flow, session, pending user, sent mail, audit event
        #expect(try await store.direct.users.find(id: stale.id) == nil)
        #expect(try await store.direct.users.find(id: keep.id) == keep)
        #expect(try await store.direct.flows.find(tokenHash: oldFlow.tokenHash) == nil)
        #expect(try await store.direct.sessions.find(id: oldSession.id) == nil)
        #expect(try await store.direct.sessions.find(id: liveSession.id) == liveSession)
        #expect(try await store.direct.outbox.list(status: .sent, limit: 10).isEmpty)
        #expect(try await store.direct.outbox.list(status: .pending, limit: 10).map(\.recipient) == ["r2@example.com"])
        #expect(try await store.direct.audit.events(since: .distantPast, limit: 10).map(\.kind) == ["new"])
    }

    /// Clients that came by themselves (registration, metadata document) go once old and held by no session; the
    /// operator's never.
    @Test(arguments: StoreUnderTest.allCases)
    func purgeDropsOnlyUnusedSelfMadeClients(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "holder@example.com")
        try await store.direct.users.insert(user)
        func client(_ id: String, origin: String?, age: TimeInterval) async throws {
            let document = origin.map { #"{"origin":"\#($0)","scopes":[]}"# } ?? #"{"scopes":[]}"#
            #expect(try await store.direct.clients.insertClient(ClientRecord(id: id, name: id, document: document, secretHash: nil,
                                                                             createdAt: Fixtures.now - age)))
        }
        try await client("unused-dynamic", origin: "dynamic", age: 1000)
        try await client("https://tool.example/unused.json", origin: "metadata_document", age: 1000)
        try await client("used-dynamic", origin: "dynamic", age: 1000)
        try await client("new-dynamic", origin: "dynamic", age: 10)
        try await client("operators", origin: nil, age: 1000)
        var held = Fixtures.session(userId: user.id)
        held.audience = "used-dynamic"
        try await store.direct.sessions.insert(held)
        let cutoff = Fixtures.now - 100
        let removed = try await store.direct.maintenance.purge(PurgeCutoffs(
            flowsExpiredBefore: .distantPast, tokensExpiredBefore: .distantPast, pendingUsersUpdatedBefore: .distantPast,
            anonymousUsersIdleBefore: .distantPast, sentMailBefore: .distantPast, auditBefore: .distantPast, rateBucketsIdleBefore: .distantPast,
            unusedClientsCreatedBefore: cutoff), limit: 100)
        #expect(removed == 2)
        #expect(try await store.direct.clients.clients().map(\.id).sorted() == ["new-dynamic", "operators", "used-dynamic"])
    }

    /// A client assertion's id is taken once, and the sweep forgets it after it expired.
    @Test(arguments: StoreUnderTest.allCases)
    func aClientAssertionIsUsedOnce(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let id = Data(SecureRandom.bytes(32)), old = Data(SecureRandom.bytes(32))
        #expect(try await store.direct.clients.useClientAssertion(idHash: id, expiresAt: Fixtures.now + 60))
        #expect(try await store.direct.clients.useClientAssertion(idHash: id, expiresAt: Fixtures.now + 60) == false)
        #expect(try await store.direct.clients.useClientAssertion(idHash: old, expiresAt: Fixtures.now - 10))
        let cutoff = Fixtures.now - 1
        let removed = try await store.direct.maintenance.purge(PurgeCutoffs(
            flowsExpiredBefore: cutoff, tokensExpiredBefore: .distantPast, pendingUsersUpdatedBefore: .distantPast,
            anonymousUsersIdleBefore: .distantPast, sentMailBefore: .distantPast, auditBefore: .distantPast,
            rateBucketsIdleBefore: .distantPast), limit: 100)
        #expect(removed == 1)
        #expect(try await store.direct.clients.useClientAssertion(idHash: old, expiresAt: Fixtures.now + 60))
        #expect(try await store.direct.clients.useClientAssertion(idHash: id, expiresAt: Fixtures.now + 60) == false)
    }

    /// Test mode's wipe: with `keepAccounts` only sessions and flows go; without, accounts, mail and audit too, and the
    /// server's values stay.
    @Test(arguments: StoreUnderTest.allCases)
    func aWipeTakesWhatItSaysAndKeepsTheServersValues(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "wiped@example.com")
        try await store.direct.users.insert(user)
        let flow = Fixtures.flow(userId: user.id), session = Fixtures.session(userId: user.id)
        try await store.direct.flows.insert(flow)
        try await store.direct.sessions.insert(session)
        try await store.direct.outbox.enqueue(Fixtures.mail(1))
        try await store.direct.audit.append(AuditEvent(id: nil, at: Fixtures.now, kind: "kept until the full wipe"))
        _ = try await store.direct.serverValues.insertIfAbsent(name: "marker", value: Data([1]))

        try await store.direct.maintenance.wipe(keepAccounts: true)
        #expect(try await store.direct.flows.find(tokenHash: flow.tokenHash) == nil)
        #expect(try await store.direct.sessions.find(id: session.id) == nil)
        #expect(try await store.direct.users.find(id: user.id) == user)
        #expect(try await store.direct.audit.events(since: .distantPast, limit: 10).count == 1)

        try await store.direct.maintenance.wipe(keepAccounts: false)
        #expect(try await store.direct.users.find(id: user.id) == nil)
        #expect(try await store.direct.outbox.list(status: .pending, limit: 10).isEmpty)
        #expect(try await store.direct.audit.events(since: .distantPast, limit: 10).isEmpty)
        #expect(try await store.direct.serverValues.value(name: "marker") == Data([1]))
        #expect(try await store.direct.serverValues.value(name: "absent") == nil)
    }

    /// A purge removes at most `limit` rows of a table per call; repeated calls drain the rest, then find nothing.
    @Test(arguments: StoreUnderTest.allCases)
    func purgeIsBounded(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "bounded@example.com")
        try await store.direct.users.insert(user)
        for _ in 0..<5 {
            var session = Fixtures.session(userId: user.id)
            session.expiresAt = Fixtures.now - 10
            try await store.direct.sessions.insert(session)
        }
        let live = Fixtures.session(userId: user.id)
        try await store.direct.sessions.insert(live)
        let cutoff = Fixtures.now - 1
        let cutoffs = PurgeCutoffs(flowsExpiredBefore: cutoff, tokensExpiredBefore: cutoff, pendingUsersUpdatedBefore: cutoff, anonymousUsersIdleBefore: cutoff,
                                   sentMailBefore: cutoff, auditBefore: cutoff, rateBucketsIdleBefore: cutoff)
        var batches: [Int] = []
        for _ in 0..<4 { batches.append(try await store.direct.maintenance.purge(cutoffs, limit: 2)) }
        #expect(batches == [2, 2, 1, 0])
        #expect(try await store.direct.sessions.find(id: live.id) == live)
    }

    /// Every field of a user survives a write and a read, attributes and dates included.
    @Test(arguments: StoreUnderTest.allCases)
    func aUserComesBackAsWritten(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        var user = Fixtures.user(email: "round@example.com", username: "Round Trip")
        user.attributes = ["name": .string("Zoë"), "age": .int(42), "ratio": .double(0.5), "tags": .array([.string("a"), .bool(true)]), "none": .null]
        user.passwordHash = "$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA"
        user.lastLoginAt = Fixtures.now + 5
        user.lockedUntil = Fixtures.now + 60
        user.failedLoginCount = 3
        try await store.direct.users.insert(user)
        #expect(try await store.direct.users.find(id: user.id) == user)
        user.attributes["name"] = .string("Zoe")
        user.setUsername("Renamed")
        try await store.direct.users.update(user)
        #expect(try await store.direct.users.find(username: "RENAMED") == user)
    }
}
