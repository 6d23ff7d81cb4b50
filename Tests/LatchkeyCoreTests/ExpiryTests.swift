import Foundation
@testable import LatchkeyCore
import LatchkeyTestSupport
import Testing

/// Everything that expires, on the injected clock: one second short of the limit it still works, at the limit it
/// does not. (The black-box suite no longer sleeps through TTLs for these.)
@Suite struct ExpiryTests {
    static let password = "correct horse battery"

    /// The token and tokenId of the newest link mailed to `email`.
    static func link(_ h: EngineHarness, to email: String) async throws -> (token: String, tokenId: String) {
        _ = await h.engine.deliverPendingMail(via: h.transport, mailbox: nil)
        let text = try #require(h.transport.messages.last { $0.to == email }?.text)
        let token = try #require(text.firstMatch(of: /token=([0-9a-f]+)&tokenId=([0-9a-f]+)/))
        return (String(token.1), String(token.2))
    }

    @Test func aConfirmationLinkWorksUntilItsTTLAndNotAfter() async throws {
        let h = try await EngineHarness.make { $0.apps = [AppServicesApp(id: "app")]; $0.linkTokenTTLSeconds = 60 }
        for (email, elapsed, works) in [("early@example.com", 59.0, true), ("late@example.com", 60.0, false)] {
            try await h.appServicesService.register(appId: "app", email: email, password: Self.password, caller: h.caller)
            let link = try await Self.link(h, to: email)
            h.time.advance(seconds: elapsed)
            if works {
                try await h.appServicesService.confirm(appId: "app", token: link.token, tokenId: link.tokenId, caller: h.caller)
            } else {
                await #expect(throws: LatchkeyError.linkTokenInvalid) {
                    try await h.appServicesService.confirm(appId: "app", token: link.token, tokenId: link.tokenId, caller: h.caller)
                }
            }
        }
    }

    @Test func aResetLinkWorksUntilItsTTLAndNotAfter() async throws {
        let h = try await EngineHarness.make { $0.apps = [AppServicesApp(id: "app", confirmation: .auto)]; $0.linkTokenTTLSeconds = 60 }
        try await h.appServicesService.register(appId: "app", email: "reset@example.com", password: Self.password, caller: h.caller)
        try await h.appServicesService.sendPasswordReset(appId: "app", email: "reset@example.com", caller: h.caller)
        let first = try await Self.link(h, to: "reset@example.com")
        h.time.advance(seconds: 60)
        await #expect(throws: LatchkeyError.linkTokenInvalid) {
            try await h.engine.proofs.resetPassword(appId: "app", token: first.token, tokenId: first.tokenId, password: "a new passphrase", caller: h.caller)
        }
        try await h.appServicesService.sendPasswordReset(appId: "app", email: "reset@example.com", caller: h.caller)
        let second = try await Self.link(h, to: "reset@example.com")
        h.time.advance(seconds: 59)
        try await h.engine.proofs.resetPassword(appId: "app", token: second.token, tokenId: second.tokenId, password: "a new passphrase", caller: h.caller)
    }

    @Test func aPendingRegistrationHoldsItsAddressOnlyWhileItsLinkLives() async throws {
        let h = try await EngineHarness.make { $0.apps = [AppServicesApp(id: "app")]; $0.linkTokenTTLSeconds = 60 }
        try await h.appServicesService.register(appId: "app", email: "pending@example.com", password: Self.password, caller: h.caller)
        await #expect(throws: LatchkeyError.emailTaken) {
            try await h.appServicesService.register(appId: "app", email: "pending@example.com", password: Self.password, caller: h.caller)
        }
        h.time.advance(seconds: 60)
        await #expect(throws: LatchkeyError.userNotFound) {
            try await h.appServicesService.resendConfirmation(appId: "app", email: "pending@example.com", caller: h.caller)
        }
        try await h.appServicesService.register(appId: "app", email: "pending@example.com", password: "a newer passphrase", caller: h.caller)
    }

    @Test func aContinuationTokenExpiresAfterTheFlowTTL() async throws {
        let h = try await EngineHarness.make { $0.tokens.flowTTLSeconds = 60 }
        for (elapsed, expires) in [(59.0, false), (60.0, true)] {
            guard case .started(let token) = try await h.nativeAuthService.signUpStart(
                username: "flow-\(Int(elapsed))@example.com", password: Self.password, attributes: nil,
                challengeTypes: "oob password redirect", caller: h.caller)
            else { Issue.record("no flow started"); return }
            h.time.advance(seconds: elapsed)
            if expires {
                await #expect(throws: LatchkeyError.flowTokenExpired) {
                    try await h.nativeAuthService.signUpChallenge(continuationToken: token, challengeTypes: "oob password redirect", caller: h.caller)
                }
            } else {
                _ = try await h.nativeAuthService.signUpChallenge(continuationToken: token, challengeTypes: "oob password redirect", caller: h.caller)
            }
        }
    }
}
