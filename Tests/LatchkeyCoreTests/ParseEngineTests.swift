import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// Parse rules that depend on time: session lifetime and link expiry (the black-box tests cannot wait a year).
@Suite struct ParseEngineTests {
    static let app = {
        var app = ParseApp(id: "app")
        app.verifyUserEmails = true
        return app
    }()

    static func harness() async throws -> EngineHarness {
        try await EngineHarness.make { settings in
            settings.parseApps = [Self.app]
            settings.parseSessionTTLSeconds = 3600
        }
    }

    @Test func aSessionExpiresAfterItsLifetime() async throws {
        let h = try await Self.harness()
        let login = try await h.parseService.parseSignUp(app: Self.app, username: "ada", email: nil, password: "correct horse 9", fields: [:],
                                                   installationId: "i1", caller: h.caller)
        let token = try #require(login.sessionToken)
        #expect(try await h.parseService.parseSession(app: Self.app, token: token).user.username == "ada")
        await #expect(throws: LatchkeyError.sessionInvalid) {
            try await h.parseService.parseSession(app: ParseApp(id: "other"), token: token)
        }
        h.time.advance(seconds: 3601)
        await #expect(throws: LatchkeyError.sessionExpired) { try await h.parseService.parseSession(app: Self.app, token: token) }
        #expect(try await h.parseService.parseSessions(app: Self.app, of: login.user).isEmpty)
    }

    @Test func aVerificationLinkExpiresAndIsSingleUse() async throws {
        let h = try await Self.harness()
        _ = try await h.parseService.parseSignUp(app: Self.app, username: "grace", email: "grace@example.com", password: "correct horse 9",
                                           fields: [:], installationId: nil, caller: h.caller)
        let first = try #require(await h.lastLink(to: "grace@example.com"))
        h.time.advance(seconds: 1801)
        await #expect(throws: LatchkeyError.linkTokenInvalid) { try await h.parseService.parseVerifyEmail(token: first, caller: h.caller) }
        try await h.parseService.parseResendVerification(app: Self.app, email: "grace@example.com", caller: h.caller)
        let second = try #require(await h.lastLink(to: "grace@example.com"))
        try await h.parseService.parseVerifyEmail(token: second, caller: h.caller)
        await #expect(throws: LatchkeyError.linkTokenInvalid) { try await h.parseService.parseVerifyEmail(token: second, caller: h.caller) }
        await #expect(throws: LatchkeyError.userAlreadyConfirmed) {
            try await h.parseService.parseResendVerification(app: Self.app, email: "grace@example.com", caller: h.caller)
        }
    }
}

private extension EngineHarness {
    /// The 88-hex token of the newest Parse link mailed to `email`.
    func lastLink(to email: String) async -> String? {
        _ = await engine.deliverPendingMail(via: transport, mailbox: nil)
        guard let text = transport.messages.last(where: { $0.to == email })?.text, let range = text.range(of: #"token=[0-9a-f]{88}"#, options: .regularExpression) else {
            return nil
        }
        return String(text[range].dropFirst("token=".count))
    }
}
