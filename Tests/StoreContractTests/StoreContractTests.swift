import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// What every store must guarantee to the engine, on a real database. Run on each `StoreUnderTest`.
@Suite struct StoreContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func emailAndUsernameStayUniqueUnderRaces(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let byEmail = await Fixtures.race(8) { _ in
            try await store.transaction { tx in try await tx.users.insert(Fixtures.user(email: "race@example.com")) }
        }
        #expect(byEmail.filter { (try? $0.get()) != nil }.count == 1)
        #expect(byEmail.allSatisfy { if case .failure(let e) = $0 { return e as? StoreConflict == .emailTaken }; return true })

        // Usernames collide without regard to case; accounts without an email are allowed side by side.
        let byName = await Fixtures.race(8) { i in
            try await store.direct.users.insert(Fixtures.user(email: nil, username: i % 2 == 0 ? "Ada" : "ADA"))
        }
        #expect(byName.filter { (try? $0.get()) != nil }.count == 1)
        #expect(byName.allSatisfy { if case .failure(let e) = $0 { return e as? StoreConflict == .usernameTaken }; return true })
        try await store.direct.users.insert(Fixtures.user(email: nil, username: "grace"))
        #expect(try await store.direct.users.find(username: "GRACE")?.username == "grace")
        #expect(try await store.direct.users.find(username: "ada") != nil)

        // An update that takes someone else's username is refused the same way.
        var other = Fixtures.user(email: "other@example.com")
        try await store.direct.users.insert(other)
        other.setUsername("Grace")
        await #expect(throws: StoreConflict.usernameTaken) { try await store.direct.users.update(other) }
    }

    @Test(arguments: StoreUnderTest.allCases)
    func aThrowingTransactionLeavesNothingBehind(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        struct Abort: Error {}
        await #expect(throws: Abort.self) {
            try await store.transaction { tx in
                try await tx.users.insert(Fixtures.user(email: "half@example.com"))
                try await tx.audit.append(AuditEvent(id: nil, at: Fixtures.now, kind: "sign_up"))
                try await tx.outbox.enqueue(Fixtures.mail(0))
                throw Abort()
            }
        }
        #expect(try await store.direct.users.find(email: "half@example.com") == nil)
        #expect(try await store.direct.audit.events(since: .distantPast, limit: 10).isEmpty)
        #expect(try await store.direct.outbox.claimDue(dueBy: Fixtures.now + 1, limit: 10, leaseUntil: Fixtures.now + 60).isEmpty)
        // The store is usable afterwards (no transaction left open).
        try await store.transaction { tx in try await tx.users.insert(Fixtures.user(email: "whole@example.com")) }
        #expect(try await store.direct.users.find(email: "whole@example.com") != nil)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func aLinkTokenIsRedeemedOnceAndOnlyWhileLive(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "link@example.com")
        try await store.direct.users.insert(user)
        let hash = Data(SecureRandom.bytes(32))
        let token = ActionTokenRecord(tokenId: "t1", tokenHash: hash, kind: .reset, userId: user.id, expiresAt: Fixtures.now + 1800,
                                      usedAt: nil, createdAt: Fixtures.now)
        try await store.direct.linkTokens.replace(token)
        #expect(try await store.direct.linkTokens.redeem(tokenId: "t1", kind: .confirmation, tokenHash: hash, now: Fixtures.now) == nil)
        #expect(try await store.direct.linkTokens.redeem(tokenId: "t1", kind: .reset, tokenHash: Data(SecureRandom.bytes(32)),
                                                         now: Fixtures.now) == nil)
        #expect(try await store.direct.linkTokens.redeem(tokenId: "t1", kind: .reset, tokenHash: hash, now: Fixtures.now + 1801) == nil)
        let redemptions = await Fixtures.race(8) { _ in
            try await store.direct.linkTokens.redeem(tokenId: "t1", kind: .reset, tokenHash: hash, now: Fixtures.now)
        }
        #expect(redemptions.compactMap { try? $0.get() }.compactMap { $0 } == [user.id])
        // A new token of the same kind replaces the user's older ones.
        try await store.direct.linkTokens.replace(ActionTokenRecord(tokenId: "t2", tokenHash: hash, kind: .reset, userId: user.id,
                                                                    expiresAt: Fixtures.now + 1800, usedAt: nil, createdAt: Fixtures.now))
        #expect(try await store.direct.linkTokens.find(tokenId: "t1") == nil)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func aCodeCountsAttemptsExpiresAndRedeemsOnce(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let flow = Fixtures.flow()
        try await store.direct.flows.insert(flow)
        let right = Data(SecureRandom.bytes(32)), wrong = Data(SecureRandom.bytes(32))
        let code = OTPRecord(flowId: flow.id, codeHash: right, attemptsLeft: 3, expiresAt: Fixtures.now + 600, createdAt: Fixtures.now)
        try await store.direct.flows.saveCode(code)
        let flows = store.direct.flows
        #expect(try await flows.redeemCode(flowId: flow.id, codeHash: wrong, now: Fixtures.now) == .wrong(attemptsLeft: 2))
        #expect(try await flows.redeemCode(flowId: flow.id, codeHash: wrong, now: Fixtures.now) == .wrong(attemptsLeft: 1))
        #expect(try await flows.redeemCode(flowId: flow.id, codeHash: wrong, now: Fixtures.now) == .wrong(attemptsLeft: 0))
        #expect(try await flows.redeemCode(flowId: flow.id, codeHash: right, now: Fixtures.now) == .noLiveCode)

        try await flows.saveCode(code)
        #expect(try await flows.redeemCode(flowId: flow.id, codeHash: right, now: Fixtures.now + 601) == .noLiveCode)

        try await flows.saveCode(code)
        let outcomes = await Fixtures.race(8) { _ in try await flows.redeemCode(flowId: flow.id, codeHash: right, now: Fixtures.now) }
        let redeemed = outcomes.filter { (try? $0.get()) == CodeRedemption.redeemed }
        #expect(redeemed.count == 1)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func aContinuationTokenMovesItsFlowOnce(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let flow = Fixtures.flow()
        try await store.direct.flows.insert(flow)
        let moves = await Fixtures.race(6) { _ in
            var next = flow
            next.tokenHash = Data(SecureRandom.bytes(32))
            return try await store.direct.flows.advance(next, from: flow.tokenHash)
        }
        #expect(moves.compactMap { try? $0.get() }.filter { $0 }.count == 1)
        #expect(try await store.direct.flows.find(tokenHash: flow.tokenHash) == nil)
        #expect(try await store.direct.flows.complete(id: flow.id, tokenHash: flow.tokenHash) == false)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func dueMailHasOneClaimantAndALease(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        for i in 0..<12 { try await store.direct.outbox.enqueue(Fixtures.mail(i)) }
        try await store.direct.outbox.enqueue(Fixtures.mail(99, due: Fixtures.now + 3600))
        let now = Fixtures.now
        let claims = await Fixtures.race(4) { _ in try await store.direct.outbox.claimDue(dueBy: now, limit: 5, leaseUntil: now + 300) }
        let ids = claims.compactMap { try? $0.get() }.flatMap { $0.compactMap(\.id) }
        #expect(ids.count == 12 && Set(ids).count == 12)
        #expect(try await store.direct.outbox.claimDue(dueBy: now + 10, limit: 50, leaseUntil: now + 310).isEmpty)
        #expect(try await store.direct.outbox.claimDue(dueBy: now + 301, limit: 50, leaseUntil: now + 600).count == 12)
        // A mail due later is claimed when its time comes, with the expired leases.
        let later = try await store.direct.outbox.claimDue(dueBy: now + 3600, limit: 50, leaseUntil: now + 4000).map(\.recipient)
        #expect(later.count == 13 && later.last == "r99@example.com")
    }

    /// A sender renews its claims while it sends; a restarted single server drops the claims its dead process left;
    /// a recorded outcome ends the claim.
    @Test(arguments: StoreUnderTest.allCases)
    func claimsAreRenewedReleasedAndEndedByTheOutcome(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        for i in 0..<4 { try await store.direct.outbox.enqueue(Fixtures.mail(i)) }
        let now = Fixtures.now
        let claimed = try await store.direct.outbox.claimDue(dueBy: now, limit: 2, leaseUntil: now + 8)
        #expect(claimed.count == 2 && claimed.allSatisfy { $0.claimedUntil != nil })
        try await store.direct.outbox.renewClaims(ids: claimed.compactMap(\.id), until: now + 20)
        // Past the first lease, only the two never claimed are due: the renewed claims hold.
        #expect(Set(try await store.direct.outbox.claimDue(dueBy: now + 10, limit: 10, leaseUntil: now + 18).map(\.recipient))
                == ["r2@example.com", "r3@example.com"])
        #expect(try await store.direct.outbox.releaseClaims() == 4)
        var first = try #require(try await store.direct.outbox.claimDue(dueBy: now + 11, limit: 10, leaseUntil: now + 30).first)
        first.status = .sent
        first.claimedUntil = nil
        try await store.direct.outbox.update(first)
        #expect(try await store.direct.outbox.find(id: try #require(first.id))?.claimedUntil == nil)
        #expect(try await store.direct.outbox.releaseClaims() == 3)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func auditEventsComeBackInTheOrderTheyHappened(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        for i in 0..<20 {
            try await store.direct.audit.append(AuditEvent(id: nil, at: Fixtures.now + Double(i / 5), kind: "k\(i)"))
        }
        #expect(try await store.direct.audit.events(since: .distantPast, limit: 100).map(\.kind) == (0..<20).map { "k\($0)" })
        #expect(try await store.direct.audit.events(since: Fixtures.now + 3, limit: 3).map(\.kind) == ["k15", "k16", "k17"])
    }

    @Test(arguments: StoreUnderTest.allCases)
    func serverValuesAndTheFirstKeyAreMadeOnce(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let values = await Fixtures.race(8) { i in
            try await store.direct.serverValues.insertIfAbsent(name: "tenant_id", value: Data("tenant-\(i)".utf8))
        }
        #expect(Set(values.compactMap { try? $0.get() }).count == 1)

        // Two replicas starting at once on one database end up with one signing key and one tenant.
        let replica = try await kind.make(sharing: store)
        let engines = await Fixtures.race(2) { i in
            try await LatchkeyEngine.start(store: i == 0 ? store : replica, settings: EngineSettings(publicURL: "http://localhost", clients: [], attributes: []),
                                           mailComposer: try MailComposer.load(directory: EngineHarness.repositoryRoot + "/config/templates"),
                                           logger: .init(label: "test"))
        }
        let started = engines.compactMap { try? $0.get() }
        #expect(started.count == 2, "\(engines.compactMap { result -> String? in if case .failure(let error) = result { "\(error)" } else { nil } })")
        #expect(Set(started.map { $0.signingKeys[0].kid }).count == 1 && Set(started.map(\.tenantId)).count == 1)
        #expect(try await store.direct.serverValues.signingKeys().count == 1)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func aRefreshTokenFamilyIsRevokedByFamilyOrUser(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "s@example.com")
        try await store.direct.users.insert(user)
        let first = Fixtures.session(userId: user.id, family: "fam")
        try await store.direct.sessions.insert(first)
        let child = Fixtures.session(userId: user.id, family: "fam", parent: first.id)
        let other = Fixtures.session(userId: user.id)
        try await store.direct.sessions.insert(child)
        try await store.direct.sessions.insert(other)
        try await store.direct.sessions.revoke(familyId: "fam", at: Fixtures.now)
        #expect(try await store.direct.sessions.find(tokenHash: child.tokenHash)?.revokedAt != nil)
        #expect(try await store.direct.sessions.find(tokenHash: first.tokenHash)?.revokedAt != nil)
        #expect(try await store.direct.sessions.find(tokenHash: other.tokenHash)?.revokedAt == nil)
        try await store.direct.sessions.revoke(userId: user.id, at: Fixtures.now)
        #expect(try await store.direct.sessions.find(tokenHash: other.tokenHash)?.revokedAt != nil)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func aFirstUseRotatesAndStoresExactlyOneChild(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "r@example.com")
        try await store.direct.users.insert(user)
        let first = Fixtures.session(userId: user.id, family: "fam")
        try await store.direct.sessions.insert(first)
        let children = (0..<6).map { _ in Fixtures.session(userId: user.id, family: "fam", parent: first.id) }
        let rotations = await Fixtures.race(6) { index in
            (index, try await store.direct.sessions.rotate(id: first.id, at: Fixtures.now, child: children[index]))
        }
        let won = rotations.compactMap { try? $0.get() }.filter(\.1).map(\.0)
        #expect(won.count == 1)
        for (index, child) in children.enumerated() {
            #expect(try await store.direct.sessions.find(tokenHash: child.tokenHash) != nil ? won == [index] : won != [index])
        }
        let revoked = Fixtures.session(userId: user.id)
        try await store.direct.sessions.insert(revoked)
        try await store.direct.sessions.revoke(userId: user.id, at: Fixtures.now)
        let orphan = Fixtures.session(userId: user.id, parent: revoked.id)
        #expect(try await store.direct.sessions.rotate(id: revoked.id, at: Fixtures.now, child: orphan) == false)
        #expect(try await store.direct.sessions.find(tokenHash: orphan.tokenHash) == nil)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func parallelPasswordAttemptsEachTakeASlotAndALockHolds(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "p@example.com")
        try await store.direct.users.insert(user)
        let attempts = await Fixtures.race(10) { _ in try await store.direct.users.takePasswordAttempt(userId: user.id, now: Fixtures.now) }
        let counts = attempts.compactMap { result -> Int? in
            if case .success(.counted(let n)?) = result { return n }
            return nil
        }
        #expect(counts.sorted() == Array(1...10))
        try await store.direct.users.lock(userId: user.id, until: Fixtures.now + 60)
        #expect(try await store.direct.users.takePasswordAttempt(userId: user.id, now: Fixtures.now + 30) == .locked(until: Fixtures.now + 60))
        #expect(try await store.direct.users.takePasswordAttempt(userId: user.id, now: Fixtures.now + 61) == .counted(failures: 11))
        try await store.direct.users.clearPasswordAttempts(userId: user.id)
        #expect(try await store.direct.users.takePasswordAttempt(userId: user.id, now: Fixtures.now) == .counted(failures: 1))
        #expect(try await store.direct.users.takePasswordAttempt(userId: "nobody", now: Fixtures.now) == nil)
    }
}
