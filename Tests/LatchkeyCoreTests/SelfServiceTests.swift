import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// The account page's use cases on the engine, with the injected clock: a change to a way in needs a sign-in within
/// `mfa.recent_sign_in_seconds` (ten minutes), a change to the profile does not; an address change proven by its
/// code tells the old address; deletion asks for the address typed again.
@Suite struct SelfServiceTests {
    func signedIn(_ h: EngineHarness, _ email: String) async throws -> AccountHolder { try await session(h, email).holder }

    func session(_ h: EngineHarness, _ email: String) async throws -> (holder: AccountHolder, cookie: String) {
        _ = try await h.signUp(email)
        guard let user = try await h.engine.reader.users.find(email: email) else { throw LatchkeyError.userNotFound }
        let (cookie, _) = try await h.pagesService.openBrowserSession(BrowserSignIn(user: user, amr: ["pwd"]), caller: h.caller)
        guard let holder = try await SelfService(engine: h.engine).holder(cookie: cookie) else { throw LatchkeyError.userNotFound }
        return (holder, cookie)
    }

    @Test func aChangeToAWayInAsksForARecentSignInAndTheProfileDoesNot() async throws {
        let h = try await EngineHarness.make(attributes: [AttributeDefinition(name: "nickname")])
        let account = SelfService(engine: h.engine)
        let holder = try await signedIn(h, "stepup@example.com")
        h.time.advance(seconds: 9 * 60)
        #expect(!(try await account.offerAuthenticator(holder).secret.isEmpty))
        h.time.advance(seconds: 2 * 60)  // eleven minutes after the sign-in
        await #expect(throws: LatchkeyError.secondFactor(.signInNotRecent(maxAgeSeconds: 600))) { try await account.offerAuthenticator(holder) }
        await #expect(throws: LatchkeyError.secondFactor(.signInNotRecent(maxAgeSeconds: 600))) {
            try await account.deleteAccount(holder, typed: "stepup@example.com", caller: h.caller)
        }
        await #expect(throws: LatchkeyError.secondFactor(.signInNotRecent(maxAgeSeconds: 600))) {
            _ = try await account.changePassword(holder, current: nil, new: "another-passphrase", caller: h.caller)
        }
        try await account.updateProfile(holder, attributes: ["nickname": .string("Ada")], caller: h.caller)
        #expect(try await h.engine.reader.users.find(id: holder.user.id)?.attributes["nickname"] == .string("Ada"))
        // The current password stands in for a recent sign-in.
        _ = try await account.changePassword(holder, current: "a-strong-passphrase", new: "another-passphrase", caller: h.caller)
        #expect(try await h.engine.reader.users.find(id: holder.user.id)?.passwordHash != holder.user.passwordHash)
    }

    @Test func aNewAddressIsProvenByItsCodeAndTheOldOneIsTold() async throws {
        let h = try await EngineHarness.make()
        let account = SelfService(engine: h.engine)
        let holder = try await signedIn(h, "old@example.com")
        let target = try await account.startAddressChange(holder, newEmail: "New@Example.com", currentPassword: nil, caller: h.caller)
        #expect(target == "new@example.com")
        await #expect(throws: LatchkeyError.self) {
            try await account.finishAddressChange(holder, newEmail: target, code: "00000000", caller: h.caller)
        }
        let code = await h.lastCode(to: target)
        try await account.finishAddressChange(holder, newEmail: target, code: code, caller: h.caller)
        let user = try #require(try await h.engine.reader.users.find(id: holder.user.id))
        #expect(user.email == target && user.emailVerified && user.passwordHash != nil)  // nothing else ends
        _ = await h.engine.deliverPendingMail(via: h.transport, mailbox: nil)
        #expect(h.transport.messages.contains { $0.to == "old@example.com" && $0.kind == .emailChanged })
        // The code is used up.
        await #expect(throws: LatchkeyError.self) {
            try await account.finishAddressChange(holder, newEmail: target, code: code, caller: h.caller)
        }
    }

    @Test func deletingNeedsTheAddressTypedAgainAndEndsEverySession() async throws {
        let h = try await EngineHarness.make()
        let account = SelfService(engine: h.engine)
        let (holder, cookie) = try await session(h, "leaving@example.com")
        await #expect(throws: AccountPageRefusal.confirmationMismatch) {
            try await account.deleteAccount(holder, typed: "someone@example.com", caller: h.caller)
        }
        try await account.deleteAccount(holder, typed: " Leaving@Example.com ", caller: h.caller)
        #expect(try await h.engine.reader.users.find(id: holder.user.id) == nil)
        #expect(try await account.holder(cookie: cookie) == nil)
        let events = try await h.engine.reader.audit.events(AuditQuery(since: .distantPast, userId: holder.user.id, limit: 50))
        #expect(events.contains { $0.kind == "user_deleted" && $0.actor == "self" })
    }
}
