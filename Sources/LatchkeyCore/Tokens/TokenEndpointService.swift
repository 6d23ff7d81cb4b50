import Foundation

/// The token endpoint's OAuth grants: the code exchange (`Tokens/CodeExchange.swift`) and the refresh
/// (`TokenMinting.swift`), beside the provider that issues the codes and the native API that starts the journeys.
public struct TokenEndpointService: TokenEndpointSurface, EngineKernel {
    public let engine: LatchkeyEngine

    public init(engine: LatchkeyEngine) { self.engine = engine }

    public var settings: EngineSettings { engine.settings }

    public func exchangeAuthorizationCode(code: String?, redirectUri: String?, codeVerifier: String?, resource: String?,
                                          client: ClientApplication, caller: CallerInfo) async throws -> TokenSet {
        try await engine.tokens.exchangeAuthorizationCode(code: code, redirectUri: redirectUri, codeVerifier: codeVerifier, resource: resource,
                                                          client: client, caller: caller)
    }

    public func refresh(refreshToken: String?, scope: String?, resource: String?, caller: CallerInfo) async throws -> TokenSet {
        try await engine.tokens.refresh(refreshToken: refreshToken, scope: scope, resource: resource, caller: caller)
    }

    public func startDeviceAuthorization(client: ClientApplication, scope: String?, resource: String?, caller: CallerInfo) async throws
        -> DeviceAuthorization {
        try await engine.tokens.startDeviceAuthorization(client: client, scope: scope, resource: resource, caller: caller)
    }

    public func registerClient(_ metadata: [String: JSONValue], initialToken: String?, caller: CallerInfo) async throws -> ClientRegistration {
        try await engine.tokens.registerClient(metadata, initialToken: initialToken, caller: caller)
    }

    public func registeredClient(id: String, registrationToken: String?) async throws -> ClientRegistration {
        try await engine.tokens.registeredClient(id: id, registrationToken: registrationToken)
    }

    public func deleteRegisteredClient(id: String, registrationToken: String?, caller: CallerInfo) async throws {
        try await engine.tokens.deleteRegisteredClient(id: id, registrationToken: registrationToken, caller: caller)
    }

    public func exchangeDeviceCode(_ deviceCode: String?, resource: String?, client: ClientApplication, caller: CallerInfo) async throws
        -> TokenSet {
        try await engine.tokens.exchangeDeviceCode(deviceCode, resource: resource, client: client, caller: caller)
    }
}
