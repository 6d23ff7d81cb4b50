import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// A self-registered client that nothing uses goes `openid.registration_unused_days` after it registered, with the
/// sweep; before that, and an operator's client ever, stays.
@Suite struct UnusedClientExpiryTests {
    @Test func theSweepRemovesAnUnusedRegistrationAfterItsDays() async throws {
        let h = try await EngineHarness.make { settings in
            settings.openID.registration.enabled = true
            settings.openID.registration.unusedDays = 30
        }
        let metadata: [String: JSONValue] = ["redirect_uris": .array([.string("http://127.0.0.1/callback")]),
                                             "token_endpoint_auth_method": .string("none")]
        let registered = try await h.engine.tokens.registerClient(metadata, initialToken: nil, caller: h.caller).client
        h.time.advance(seconds: 29 * 86_400)
        await h.engine.purgeExpiredState()
        try await h.engine.reloadClients()
        #expect(h.engine.client(id: registered.id) != nil)

        h.time.advance(seconds: 2 * 86_400)
        await h.engine.purgeExpiredState()
        try await h.engine.reloadClients()
        #expect(h.engine.client(id: registered.id) == nil)
        #expect(h.engine.client(id: EngineHarness.client) != nil)
    }
}
