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
        let session = h.operatorService.newConsoleSession(operatorName: "alice", credential: Self.token)
        var sealed = h.operatorService.sealConsoleSession(session)
        #expect(h.operatorService.openConsoleSession(sealed, credential: Self.token, policy: Self.policy)?.operatorName == "alice")
        // Another admin token (rotated) ends every session; a tampered or foreign cookie is nobody's.
        #expect(h.operatorService.openConsoleSession(sealed, credential: Digest.sha256(Array("another token".utf8)), policy: Self.policy) == nil)
        #expect(h.operatorService.openConsoleSession(String(sealed.dropLast(2)) + "AA", credential: Self.token, policy: Self.policy) == nil)
        #expect(h.operatorService.openConsoleSession("garbage", credential: Self.token, policy: Self.policy) == nil)

        // Each request restarts the idle clock, up to the absolute limit.
        for _ in 0..<6 {
            h.time.advance(seconds: 500)
            guard let seen = h.operatorService.openConsoleSession(sealed, credential: Self.token, policy: Self.policy) else {
                Issue.record("a session used every 500 s idled out"); return
            }
            sealed = h.operatorService.sealConsoleSession(seen)
        }
        h.time.advance(seconds: 700)  // 3,700 s after sign-in
        #expect(h.operatorService.openConsoleSession(sealed, credential: Self.token, policy: Self.policy) == nil)

        let idle = h.operatorService.sealConsoleSession(h.operatorService.newConsoleSession(operatorName: "bob", credential: Self.token))
        h.time.advance(seconds: 601)
        #expect(h.operatorService.openConsoleSession(idle, credential: Self.token, policy: Self.policy) == nil)
    }

    @Test func csrfTokenBelongsToOneSession() async throws {
        let h = try await EngineHarness.make()
        let one = h.operatorService.newConsoleSession(operatorName: "alice", credential: Self.token)
        let other = h.operatorService.newConsoleSession(operatorName: "alice", credential: Self.token)
        #expect(h.operatorService.consoleCSRFTokenMatches(h.operatorService.consoleCSRFToken(one), session: one))
        #expect(!h.operatorService.consoleCSRFTokenMatches(h.operatorService.consoleCSRFToken(other), session: one))
        #expect(!h.operatorService.consoleCSRFTokenMatches(nil, session: one))
        #expect(ConsoleSession.acceptableName("Ada Lovelace") == "Ada Lovelace")
        #expect(ConsoleSession.acceptableName("<script>") == nil)
        #expect(ConsoleSession.acceptableName("") == nil)
    }

    @Test func unlockLiftsALockoutAndIsAuditedUnderTheOperator() async throws {
        let h = try await EngineHarness.make()
        let done = try await h.signUp("locked@example.com", password: "the right passphrase")
        _ = try await h.nativeAuthService.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil, caller: h.caller)
        func attempt(_ password: String) async throws -> SignInOutcome { try await h.passwordSignIn("locked@example.com", password) }
        for _ in 0..<5 { await #expect(throws: LatchkeyError.invalidCredentials) { _ = try await attempt("wrong one!") } }
        await #expect(throws: LatchkeyError.accountLocked(retryAfterSeconds: 30)) { _ = try await attempt("the right passphrase") }

        let session = h.operatorService.newConsoleSession(operatorName: "alice", credential: Self.token)
        let caller = h.operatorService.consoleCaller(session, ip: "192.0.2.7", userAgent: "browser")
        let user = try await h.operatorService.adminUnlock("locked@example.com", caller: caller)
        #expect(user.lockedUntil == nil && user.failedLoginCount == 0)
        _ = try await attempt("the right passphrase")

        let events = try await h.operatorService.adminAuditEvents(AuditQuery(since: .distantPast, kind: "admin.user_unlocked", limit: 10))
        #expect(events.map(\.actor) == ["console:alice"])
        #expect(events.first?.dialect == "console" && events.first?.clientIp == "192.0.2.7")
        // The sign-ins were recorded with the dialect they came through.
        let signIns = try await h.operatorService.adminAuditEvents(AuditQuery(since: .distantPast, kind: "sign_in_failed", limit: 10))
        #expect(signIns.count == 5 && signIns.allSatisfy { $0.dialect == "native" && $0.actor == nil })
    }

    @Test func resetMailGoesToTheUserAndNotToADisabledAccount() async throws {
        let h = try await EngineHarness.make()
        _ = try await h.signUp("reset@example.com")
        try await h.operatorService.adminSendPasswordReset("reset@example.com", caller: h.caller)
        let user = try await h.operatorService.adminFindUser("reset@example.com")
        let mails = try await h.operatorService.adminMail(to: user, limit: 10)
        #expect(mails.first?.kind == "reset_link" && mails.first?.status == .pending)
        _ = await h.engine.deliverPendingMail(via: h.transport, mailbox: nil)
        #expect(h.transport.messages.last?.text.contains("http://localhost/reset-password?token=") == true)

        _ = try await h.operatorService.adminSetDisabled(user.id, disabled: true, caller: h.caller)
        await #expect(throws: OperatorService.RecoveryRefusal.disabled) { try await h.operatorService.adminSendPasswordReset(user.id, caller: h.caller) }
    }

    @Test func sessionsAreOnePerFamilyWithTheirLastUse() async throws {
        let h = try await EngineHarness.make()
        let done = try await h.signUp("sessions@example.com")
        guard case .tokens(let tokens) = try await h.nativeAuthService.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil,
                                                                                       caller: h.caller) else {
            Issue.record("the sign-in gave no tokens"); return
        }
        h.time.advance(seconds: 120)
        _ = try await h.engine.tokens.refresh(refreshToken: tokens.refreshToken, scope: nil, caller: h.caller)
        let sessions = try await h.operatorService.adminSessions("sessions@example.com")
        #expect(sessions.count == 1)
        #expect(sessions.first?.kind == .native && sessions.first?.audience == EngineHarness.client)
        #expect(sessions.first.map { $0.lastUsedAt.timeIntervalSince($0.startedAt) } == 120)
        try await h.operatorService.adminRevokeSessions("sessions@example.com", caller: h.caller)
        #expect(try await h.operatorService.adminSessions("sessions@example.com").isEmpty)
    }

    @Test func overviewCountsTheWindowsBuckets() async throws {
        let h = try await EngineHarness.make()
        _ = try await h.signUp("one@example.com")
        h.time.advance(seconds: 3 * 3600)
        _ = try await h.signUp("two@example.com")
        h.time.advance(seconds: 3 * 86_400)
        let overview = try await h.operatorService.adminOverview()
        #expect(overview.month.total("sign_up") == 2)
        #expect(overview.day.total("sign_up") == 0)
        #expect(overview.month.counts["sign_up"]?.count == 30 && overview.day.counts["sign_up"]?.count == 24)
        #expect(overview.month.counts["sign_up"]?[26] == 2)  // both three days before today's bucket
        #expect(overview.databaseReady && overview.signingKeyCreatedAt != nil)
    }

    @Test func anAccountsConsoleSessionStandsWhileItIsAnActiveOperatorWithItsSessions() async throws {
        let h = try await EngineHarness.make()
        let done = try await h.signUp("op@example.com")
        guard case .tokens(let tokens) = try await h.nativeAuthService.signInWithContinuationToken(continuationToken: done, username: nil, scope: nil,
                                                                                       caller: h.caller),
              let refresh = tokens.refreshToken, let family = try await h.store.direct.sessions.find(tokenHash: h.engine.tokens.sessionKey(refresh))?.familyId
        else { Issue.record("the sign-in gave no refresh token"); return }
        await #expect(throws: OperatorService.RoleRefusal.unknownRole("root")) {
            try await h.operatorService.adminGrantRole("op@example.com", role: "root", caller: h.caller)
        }
        try await h.operatorService.adminGrantRole("op@example.com", role: "operator", caller: h.caller)
        let now = h.time.now()
        let session = ConsoleSession(id: "s", operatorName: "op@example.com", startedAt: now, seenAt: now,
                                     credential: h.operatorService.consoleBinding(OperatorService.accountCredential(tokens.userId)),
                                     userId: tokens.userId, familyId: family)
        // Sealed and opened: bound to the account, not to any admin token.
        let opened = h.operatorService.openConsoleSession(h.operatorService.sealConsoleSession(session), credential: Self.token, policy: Self.policy)
        #expect(opened?.userId == tokens.userId)
        #expect(h.operatorService.consoleCaller(session, ip: nil, userAgent: nil).actor == "operator:op@example.com")
        #expect(try await h.operatorService.consoleAccountHolds(session))
        try await h.operatorService.adminRevokeSessions("op@example.com", caller: h.caller)
        #expect(try await h.operatorService.consoleAccountHolds(session) == false)
        var fresh = session
        fresh.familyId = nil
        #expect(try await h.operatorService.consoleAccountHolds(fresh))
        try await h.operatorService.adminRevokeRole("op@example.com", role: "operator", caller: h.caller)
        #expect(try await h.operatorService.consoleAccountHolds(fresh) == false)
        let kinds = try await h.operatorService.adminAuditEvents(AuditQuery(since: .distantPast, limit: 100)).map(\.kind)
        #expect(kinds.contains("admin.role_granted") && kinds.contains("admin.role_revoked"))
    }
}
