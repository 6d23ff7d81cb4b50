import Foundation
@testable import LatchkeyCore
import LatchkeyTestSupport
import Testing

/// App Services refresh tokens are JWTs the Realm SDKs parse, and stay sessions the server ends (`AppRefreshTokens`).
/// Lifetimes on the injected clock.
@Suite struct AppRefreshTokenTests {
    static func harness(_ configure: (inout EngineSettings) -> Void = { _ in }) async throws -> EngineHarness {
        var app = AppServicesApp(id: "app", confirmation: .auto)
        app.providers = ["local-userpass", "anon-user"]
        return try await EngineHarness.make { $0.apps = [app]; configure(&$0) }
    }

    static func payload(_ token: String) throws -> [String: JSONValue] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3 && !parts[2].isEmpty)
        return try JSONDecoder().decode([String: JSONValue].self, from: Data(try #require(Base64URL.decode(parts[1]))))
    }

    @Test func aSessionLastsItsLifetimeAndAnAnonymousOneLonger() async throws {
        let h = try await Self.harness { $0.appSessionTTLSeconds = 86_400; $0.appAnonymousSessionTTLSeconds = 10 * 86_400 }
        let named = try await h.appServicesService.appIdentityLogin(appId: "app", providerType: "anon-user", credential: AppCredential(), caller: h.caller)
        let claims = try Self.payload(named.refreshToken)
        #expect(claims["typ"] == "refresh" && claims["sub"] == .string(named.userId))
        let iat = try #require(claims["iat"]?.intValue), exp = try #require(claims["exp"]?.intValue)
        #expect(exp - iat == 10 * 86_400)
        #expect(iat == Int(h.time.now().timeIntervalSince1970))
        h.time.advance(seconds: 9 * 86_400)
        _ = try await h.appServicesService.appRefresh(refreshToken: named.refreshToken)
        h.time.advance(seconds: 86_401)
        await #expect(throws: LatchkeyError.sessionInvalid) { _ = try await h.appServicesService.appRefresh(refreshToken: named.refreshToken) }
    }

    @Test func anyChangeToTheTokenFindsNoSession() async throws {
        let h = try await Self.harness()
        let login = try await h.appServicesService.appIdentityLogin(appId: "app", providerType: "anon-user", credential: AppCredential(), caller: h.caller)
        let token = login.refreshToken
        #expect(try await h.engine.tokens.findSession(token: token) != nil)
        let parts = token.split(separator: ".").map(String.init)
        var claims = try Self.payload(token)
        claims["exp"] = .int((claims["exp"]?.intValue ?? 0) + 1)
        let longer = parts[0] + "." + Base64URL.encode(JSONWriter.bytes(claims)) + "." + parts[2]
        #expect(try await h.engine.tokens.findSession(token: longer) == nil)
        #expect(try await h.engine.tokens.findSession(token: parts[0] + "." + parts[1] + ".") == nil)
        #expect(try await h.engine.tokens.findSession(token: parts[0] + "." + parts[1]) == nil)
        // The same claims signed by another deployment's key.
        let other = AppRefreshTokens(serverKey: SecureRandom.bytes(32))
        #expect(other.jti(of: token) == nil)
        #expect(h.engine.keys.appRefreshTokens.jti(of: token) != nil)
    }

    /// Opaque App Services refresh tokens issued before the JWTs (both earlier shapes) keep working until they expire.
    @Test func opaqueTokensIssuedBeforeStillRefreshAndLogOut() async throws {
        let h = try await Self.harness()
        let login = try await h.appServicesService.appIdentityLogin(appId: "app", providerType: "anon-user", credential: AppCredential(), caller: h.caller)
        let now = h.time.now()
        let current = h.engine.tokens.newSessionToken(at: now)
        let legacy = SecureRandom.token()
        for (token, key) in [(current.token, current.key), (legacy, h.engine.secretHash(legacy))] {
            let id = SecureRandom.bytes(12).hex
            try await h.store.direct.sessions.insert(SessionRecord(
                id: id, familyId: id, userId: login.userId, kind: .appServices, audience: "app", scope: AppServicesService.appSessionScope,
                tokenHash: key, createdAt: now, expiresAt: now + 3600, deviceId: SecureRandom.bytes(12).hex))
            _ = try await h.appServicesService.appRefresh(refreshToken: token)
            try await h.appServicesService.appLogout(refreshToken: token, caller: h.caller)
            await #expect(throws: LatchkeyError.sessionInvalid) { _ = try await h.appServicesService.appRefresh(refreshToken: token) }
        }
    }
}
