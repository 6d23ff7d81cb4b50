import Foundation
import Logging

/// The operator's surface (the admin API, the console, the CLI): its use cases live here, not on the engine. It holds
/// the engine only as the kernel (store, clock, keys, audit, limits) and for the account rules every surface shares
/// (sessions that end, factors that go, mails the owner gets), which it reaches through `engine`.
public struct OperatorService: OperatorSurface, EngineKernel {
    let engine: LatchkeyEngine

    public init(engine: LatchkeyEngine) { self.engine = engine }

    public typealias AdminError = LatchkeyEngine.AdminError

    // What the operator's surface shows of the kernel (the console's overview reads the store and the clock).
    public var settings: EngineSettings { engine.settings }
    public var store: any Store { engine.store }
    public var time: any TimeSource { engine.time }
    public var logger: Logger { engine.logger }

    // The operator's use cases that live with their feature (API keys, browser sessions and consents, stored clients).
    public var allClients: [ClientApplication] { engine.allClients }
    public func createServerApiKey(appId: String, name: String?, caller: CallerInfo) async throws -> NewApiKey {
        try await engine.createServerApiKey(appId: appId, name: name, caller: caller)
    }
    public func revokeApiKey(id: String, caller: CallerInfo) async throws {
        try await engine.revokeApiKey(id: id, caller: caller)
    }
    public func serverApiKeys(appId: String?) async throws -> [ApiKey] { try await engine.serverApiKeys(appId: appId) }
    public func adminBrowserSessions(_ key: String) async throws -> [BrowserSessionRecord] {
        try await engine.adminBrowserSessions(key)
    }
    public func adminConsents(_ key: String) async throws -> [ConsentRecord] { try await engine.adminConsents(key) }
    public func adminEndBrowserSession(_ key: String, sessionId: String, caller: CallerInfo) async throws {
        try await engine.adminEndBrowserSession(key, sessionId: sessionId, caller: caller)
    }
    public func adminRevokeConsent(_ key: String, clientId: String, caller: CallerInfo) async throws {
        try await engine.adminRevokeConsent(key, clientId: clientId, caller: caller)
    }
    public func adminCreateClient(_ new: NewClient, caller: CallerInfo) async throws -> (client: ClientApplication, secret: String?) {
        try await engine.adminCreateClient(new, caller: caller)
    }
    public func adminDeleteClient(_ id: String, caller: CallerInfo) async throws {
        try await engine.adminDeleteClient(id, caller: caller)
    }
    public func adminRotateClientSecret(_ id: String, caller: CallerInfo) async throws -> String {
        try await engine.adminRotateClientSecret(id, caller: caller)
    }
    public func isStoredClient(_ id: String) -> Bool { engine.isStoredClient(id) }
}
