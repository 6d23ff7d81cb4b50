import Foundation

/// The App Services surface (the Realm SDKs' wire): registration, confirmation, reset, logins by every provider,
/// sessions and user API keys. Its use cases live here; it reaches the engine as the kernel (store, clock, keys,
/// audit, limits) and for the account rules every surface shares (creating accounts, checking passwords, proving
/// addresses, linking identities, following mailed links).
public struct AppServicesService: AppServicesSurface, EngineKernel {
    public let engine: LatchkeyEngine

    public init(engine: LatchkeyEngine) { self.engine = engine }

    public var settings: EngineSettings { engine.settings }

    // What App Services shares with the hosted pages and Parse's link pages: the apps, and following a mailed link.
    public var tenantId: String { engine.tenantId }
    public func identities(of user: UserRecord) async throws -> [IdentityRecord] { try await engine.identity.identities(of: user) }
    public func identities(ofUsers ids: [String]) async throws -> [String: [IdentityRecord]] { try await engine.identity.identities(ofUsers: ids) }
    public func userForAccessToken(_ token: String, audience: AccessTokenAudience) async throws -> UserRecord {
        try await engine.tokens.userForAccessToken(token, audience: audience)
    }
    public func requireApp(_ id: String) throws -> AppServicesApp { try engine.requireApp(id) }
    public func resetPassword(appId: String, token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws {
        try await engine.proofs.resetPassword(appId: appId, token: token, tokenId: tokenId, password: password, caller: caller)
    }
    public func resetPassword(token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws {
        try await engine.proofs.resetPassword(token: token, tokenId: tokenId, password: password, caller: caller)
    }
}
