import Foundation
@testable import LatchkeyCore
import LatchkeyTestSupport
import Testing

/// Every record type comes back from each store exactly as it was written: every field, optional ones set and
/// unset, dates to the millisecond the stores keep, JSON inside records included. (Users and sessions have theirs
/// in MaintenanceContractTests and StoreContractTests.)
@Suite struct RoundTripContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func aFlowAndItsCodeComeBackAsWritten(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "flow@example.com")
        try await store.direct.users.insert(user)
        var flow = Fixtures.flow(userId: user.id)
        flow.kind = .signUp
        flow.state.stage = .passwordRequired
        flow.state.signUp = SignUpProgress(passwordHash: "$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA", attributes: [
            "displayName": .string("Zoë"), "age": .int(7), "nested": .object(["a": .array([.null, .bool(false)])])], emailVerified: true)
        flow.state.client.capabilities = ["mfa_required"]
        flow.state.client.audience = .browser
        flow.state.factors.amr = ["otp"]
        flow.state.factors.mailboxProven = true
        flow.state.factors.target = "+15550100"
        try await store.direct.flows.insert(flow)
        #expect(try await store.direct.flows.find(tokenHash: flow.tokenHash) == flow)
        // A code is read back through what it is for: redeemed once with its hash, before it expires.
        let code = OTPRecord(flowId: flow.id, codeHash: Data(SecureRandom.bytes(32)), attemptsLeft: 3, expiresAt: Fixtures.now + 60,
                             createdAt: Fixtures.now)
        try await store.direct.flows.saveCode(code)
        #expect(try await store.direct.flows.redeemCode(flowId: flow.id, codeHash: Data(SecureRandom.bytes(32)), now: Fixtures.now)
                == .wrong(attemptsLeft: 2))
        #expect(try await store.direct.flows.redeemCode(flowId: flow.id, codeHash: code.codeHash, now: Fixtures.now) == .redeemed)
    }

    @Test(arguments: StoreUnderTest.allCases)
    func aLinkTokenComesBackAsWritten(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let user = Fixtures.user(email: "link@example.com")
        try await store.direct.users.insert(user)
        for usedAt in [nil, Fixtures.now + 3] as [Date?] {
            let token = ActionTokenRecord(tokenId: String(UUID().uuidString.prefix(24)), tokenHash: Data(SecureRandom.bytes(32)),
                                          kind: .reset, userId: user.id, expiresAt: Fixtures.now + 1800, usedAt: usedAt,
                                          createdAt: Fixtures.now)
            try await store.direct.linkTokens.replace(token)
            #expect(try await store.direct.linkTokens.find(tokenId: token.tokenId) == token)
        }
    }

    @Test(arguments: StoreUnderTest.allCases)
    func mailAuditAndKeysComeBackAsWritten(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        var mail = Fixtures.mail(1)
        mail.lastError = "451 4.3.0 try later"
        mail.attempts = 2
        try await store.direct.outbox.enqueue(mail)
        let stored = try #require(try await store.direct.outbox.list(status: .pending, limit: 10).first)
        mail.id = stored.id
        #expect(stored == mail)

        let event = AuditEvent(id: nil, at: Fixtures.now + 1, kind: "sign_in", userId: "u-1", email: "a@example.com", clientIp: "2001:db8::1",
                               userAgent: "Zoë's app/1.0 (ÄÖÜ)", detail: "password")
        try await store.direct.audit.append(event)
        let read = try #require(try await store.direct.audit.events(since: Fixtures.now, limit: 10).first { $0.kind == "sign_in" })
        var expected = event
        expected.id = read.id
        #expect(read == expected)

        let key = SigningKeyRecord(kid: "kid-\(UUID().uuidString)", algorithm: "ES256", privateKeyPem: try SigningKey.generate().privateKeyPEM(),
                                   createdAt: Fixtures.now)
        try await store.direct.serverValues.insert(signingKey: key)
        #expect(try await store.direct.serverValues.signingKeys().contains(key))
        let value = Data(SecureRandom.bytes(32))
        #expect(try await store.direct.serverValues.insertIfAbsent(name: "round_trip", value: value) == value)
        #expect(try await store.direct.serverValues.insertIfAbsent(name: "round_trip", value: Data([1])) == value)
    }
}
