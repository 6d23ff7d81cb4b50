import Foundation
@testable import LatchkeyCore
import LatchkeyTestSupport
import Testing

/// Identities in the engine, on the injected clock: anonymous accounts live until they sit idle past
/// `identities.anonymous.idle_days`, a sign-in keeps them, an upgrade keeps them for good; the last way in stays.
@Suite struct IdentityEngineTests {
    static func app() -> AppServicesApp {
        var app = AppServicesApp(id: "app", confirmation: .auto)
        app.providers = ["local-userpass", "anon-user"]
        return app
    }

    @Test func idleAnonymousAccountsArePurgedAndActiveOnesKept() async throws {
        let h = try await EngineHarness.make { $0.apps = [Self.app()]; $0.identities.anonymousIdleDays = 90 }
        let idle = try await h.appServicesService.appIdentityLogin(appId: "app", providerType: "anon-user", credential: AppCredential(), caller: h.caller)
        var parse = ParseApp(id: "p")
        parse.authProviders = ["anonymous"]
        let kept = try await h.parseService.parseAuthDataLogin(app: parse, authData: ["anonymous": ["id": "device-1"]], installationId: nil,
                                                         caller: h.caller)
        h.time.advance(seconds: 89 * 86_400)
        // Signing in again through the identity counts as use.
        _ = try await h.parseService.parseAuthDataLogin(app: parse, authData: ["anonymous": ["id": "device-1"]], installationId: nil, caller: h.caller)
        h.time.advance(seconds: 2 * 86_400)
        await h.engine.purgeExpiredState()
        #expect(try await h.store.direct.users.find(id: idle.userId) == nil)
        #expect(try await h.store.direct.users.find(id: kept.login.user.id) != nil)
    }

    @Test func theLastWayInStaysAndAnAnonymousIdentityJoinsNoAccount() async throws {
        let h = try await EngineHarness.make { $0.apps = [Self.app()] }
        let login = try await h.appServicesService.appIdentityLogin(appId: "app", providerType: "anon-user", credential: AppCredential(), caller: h.caller)
        let user = try #require(try await h.store.direct.users.find(id: login.userId))
        await #expect(throws: LatchkeyError.lastWayIn) {
            try await h.engine.transaction { tx in _ = try await h.engine.identity.unlink(provider: "anonymous", from: user, caller: h.caller, in: tx) }
        }
        let other = try h.engine.identity.anonymousIdentity()
        await #expect(throws: LatchkeyError.linkRefused) {
            try await h.engine.transaction { tx in try await h.engine.identity.link(other, to: user, caller: h.caller, in: tx) }
        }
        #expect(try await h.engine.identity.identities(of: user).map(\.provider) == ["anonymous"])
    }
}
