import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// The engine side of the operator console: its sealed session (idle and absolute limits on the injected clock,
/// bound to the admin token), its CSRF token, and the operator's actions and reads it adds.
@Suite struct OperatorConsoleTests {
    private static let token = Digest.sha256(Array("an admin token of at least thirty-two characters".utf8))
    private static let policy = ConsoleSessionPolicy(idleSeconds: 600, absoluteSeconds: 3600)

    @Test func sessionIdlesOutEndsAtItsLimitAndIsBoundToTheToken() async throws {
        let h = try await EngineHarness.make()
        let session = h.engine.newConsoleSession(operatorName: "alice", credential: Self.token)
        var sealed = h.engine.sealConsoleSession(session)
        #expect(h.engine.openConsoleSession(sealed, credential: Self.token, policy: Self.policy)?.operatorName == "alice")
        // Another admin token (rotated) ends every session; a tampered or foreign cookie is nobody's.
        #expect(h.engine.openConsoleSession(sealed, credential: Digest.sha256(Array("another token".utf8)), policy: Self.policy) == nil)
        #expect(h.engine.openConsoleSession(String(sealed.dropLast(2)) + "AA", credential: Self.token, policy: Self.policy) == nil)
        #expect(h.engine.openConsoleSession("garbage", credential: Self.token, policy: Self.policy) == nil)

        // Each request restarts the idle clock, up to the absolute limit.
        for _ in 0..<6 {
            h.time.advance(seconds: 500)
            guard let seen = h.engine.openConsoleSession(sealed, credential: Self.token, policy: Self.policy) else {
                Issue.record("a session used every 500 s idled out"); return
            }
            sealed = h.engine.sealConsoleSession(seen)
        }
        h.time.advance(seconds: 700)  // 3,700 s after sign-in
        #expect(h.engine.openConsoleSession(sealed, credential: Self.token, policy: Self.policy) == nil)

        let idle = h.engine.sealConsoleSession(h.engine.newConsoleSession(operatorName: "bob", credential: Self.token))
        h.time.advance(seconds: 601)
        #expect(h.engine.openConsoleSession(idle, credential: Self.token, policy: Self.policy) == nil)
    }

    @Test func csrfTokenBelongsToOneSession() async throws {
        let h = try await EngineHarness.make()
        let one = h.engine.newConsoleSession(operatorName: "alice", credential: Self.token)
        let other = h.engine.newConsoleSession(operatorName: "alice", credential: Self.token)
        #expect(h.engine.consoleCSRFTokenMatches(h.engine.consoleCSRFToken(one), session: one))
        #expect(!h.engine.consoleCSRFTokenMatches(h.engine.consoleCSRFToken(other), session: one))
        #expect(!h.engine.consoleCSRFTokenMatches(nil, session: one))
        #expect(ConsoleSession.acceptableName("Ada Lovelace") == "Ada Lovelace")
        #expect(ConsoleSession.acceptableName("<script>") == nil)
        #expect(ConsoleSession.acceptableName("") == nil)
    }

    @Test func unlockLiftsALockoutAndIsAuditedUnderTheOperator() async throws {
        let h = try await EngineHarness.make()
        let done = try await h.signUp("locked@example.com", password: "the right passphrase")
        _ = try await h.engine.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil, caller: h.caller)
        func attempt(_ password: String) async throws -> SignInOutcome { try await h.passwordSignIn("locked@example.com", password) }
        for _ in 0..<5 { await #expect(throws: LatchkeyError.invalidCredentials) { _ = try await attempt("wrong one!") } }
        await #expect(throws: LatchkeyError.accountLocked(retryAfterSeconds: 30)) { _ = try await attempt("the right passphrase") }

        let session = h.engine.newConsoleSession(operatorName: "alice", credential: Self.token)
        let caller = h.engine.consoleCaller(session, ip: "192.0.2.7", userAgent: "browser")
        let user = try await h.engine.adminUnlock("locked@example.com", caller: caller)
        #expect(user.lockedUntil == nil && user.failedLoginCount == 0)
        _ = try await attempt("the right passphrase")

        let events = try await h.engine.adminAuditEvents(AuditQuery(since: .distantPast, kind: "admin.user_unlocked", limit: 10))
        #expect(events.map(\.actor) == ["console:alice"])
        #expect(events.first?.dialect == "admin" && events.first?.clientIp == "192.0.2.7")
        // The sign-ins were recorded with the dialect they came through.
        let signIns = try await h.engine.adminAuditEvents(AuditQuery(since: .distantPast, kind: "sign_in_failed", limit: 10))
        #expect(signIns.count == 5 && signIns.allSatisfy { $0.dialect == "native" && $0.actor == nil })
    }

    @Test func resetMailGoesToTheUserAndNotToADisabledAccount() async throws {
        let h = try await EngineHarness.make()
        _ = try await h.signUp("reset@example.com")
        try await h.engine.adminSendPasswordReset("reset@example.com", caller: h.caller)
        let user = try await h.engine.adminFindUser("reset@example.com")
        let mails = try await h.engine.adminMail(to: user, limit: 10)
        #expect(mails.first?.kind == "reset_link" && mails.first?.status == .pending)
        _ = await h.engine.deliverPendingMail(via: h.transport, mailbox: nil)
        #expect(h.transport.messages.last?.text.contains("http://localhost/reset-password?token=") == true)

        _ = try await h.engine.adminSetDisabled(user.id, disabled: true, caller: h.caller)
        await #expect(throws: LatchkeyEngine.RecoveryRefusal.disabled) { try await h.engine.adminSendPasswordReset(user.id, caller: h.caller) }
    }

    @Test func sessionsAreOnePerFamilyWithTheirLastUse() async throws {
        let h = try await EngineHarness.make()
        let done = try await h.signUp("sessions@example.com")
        guard case .tokens(let tokens) = try await h.engine.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil,
                                                                                       caller: h.caller) else {
            Issue.record("the sign-in gave no tokens"); return
        }
        h.time.advance(seconds: 120)
        _ = try await h.engine.refresh(refreshToken: tokens.refreshToken, scope: nil, caller: h.caller)
        let sessions = try await h.engine.adminSessions("sessions@example.com")
        #expect(sessions.count == 1)
        #expect(sessions.first?.kind == .native && sessions.first?.audience == EngineHarness.client)
        #expect(sessions.first.map { $0.lastUsedAt.timeIntervalSince($0.startedAt) } == 120)
        try await h.engine.adminRevokeSessions("sessions@example.com", caller: h.caller)
        #expect(try await h.engine.adminSessions("sessions@example.com").isEmpty)
    }

    @Test func overviewCountsTheWindowsBuckets() async throws {
        let h = try await EngineHarness.make()
        _ = try await h.signUp("one@example.com")
        h.time.advance(seconds: 3 * 3600)
        _ = try await h.signUp("two@example.com")
        h.time.advance(seconds: 3 * 86_400)
        let overview = try await h.engine.adminOverview()
        #expect(overview.month.total("sign_up") == 2)
        #expect(overview.day.total("sign_up") == 0)
        #expect(overview.month.counts["sign_up"]?.count == 30 && overview.day.counts["sign_up"]?.count == 24)
        #expect(overview.month.counts["sign_up"]?[26] == 2)  // both three days before today's bucket
        #expect(overview.databaseReady && overview.signingKeyCreatedAt != nil)
    }

    @Test func anAccountsConsoleSessionStandsWhileItIsAnActiveOperatorWithItsSessions() async throws {
        let h = try await EngineHarness.make()
        let done = try await h.signUp("op@example.com")
        guard case .tokens(let tokens) = try await h.engine.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil,
                                                                                       caller: h.caller),
              let refresh = tokens.refreshToken, let family = try await h.store.direct.sessions.find(tokenHash: h.engine.sessionKey(refresh))?.familyId
        else { Issue.record("the sign-in gave no refresh token"); return }
        await #expect(throws: LatchkeyEngine.RoleRefusal.unknownRole("root")) {
            try await h.engine.adminGrantRole("op@example.com", role: "root", caller: h.caller)
        }
        try await h.engine.adminGrantRole("op@example.com", role: "operator", caller: h.caller)
        let now = h.time.now()
        let session = ConsoleSession(id: "s", operatorName: "op@example.com", startedAt: now, seenAt: now,
                                     credential: h.engine.consoleBinding(LatchkeyEngine.accountCredential(tokens.userId)),
                                     userId: tokens.userId, familyId: family)
        // Sealed and opened: bound to the account, not to any admin token.
        let opened = h.engine.openConsoleSession(h.engine.sealConsoleSession(session), credential: Self.token, policy: Self.policy)
        #expect(opened?.userId == tokens.userId)
        #expect(h.engine.consoleCaller(session, ip: nil, userAgent: nil).actor == "operator:op@example.com")
        #expect(try await h.engine.consoleAccountHolds(session))
        try await h.engine.adminRevokeSessions("op@example.com", caller: h.caller)
        #expect(try await h.engine.consoleAccountHolds(session) == false)
        var fresh = session
        fresh.familyId = nil
        #expect(try await h.engine.consoleAccountHolds(fresh))
        try await h.engine.adminRevokeRole("op@example.com", role: "operator", caller: h.caller)
        #expect(try await h.engine.consoleAccountHolds(fresh) == false)
        let kinds = try await h.engine.adminAuditEvents(AuditQuery(since: .distantPast, limit: 100)).map(\.kind)
        #expect(kinds.contains("admin.role_granted") && kinds.contains("admin.role_revoked"))
    }
}
