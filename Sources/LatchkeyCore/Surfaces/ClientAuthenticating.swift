import Foundation

/// Finding and authenticating the client a request names: the native API's and the OpenID provider's token endpoints.
public protocol ClientAuthenticating: Sendable {
    var settings: EngineSettings { get }
    func authenticateClient(id: String?, secret: String?) throws -> ClientApplication
    func authenticateClient(assertion: String, type: String?, clientId: String?) async throws -> ClientApplication
    func requireClient(_ id: String?) throws -> ClientApplication
}


/// The clients are the engine's: one implementation for every surface with a token endpoint.
extension ClientAuthenticating where Self: EngineKernel {
    public func authenticateClient(id: String?, secret: String?) throws -> ClientApplication {
        try engine.tokens.authenticateClient(id: id, secret: secret)
    }
    public func authenticateClient(assertion: String, type: String?, clientId: String?) async throws -> ClientApplication {
        try await engine.tokens.authenticateClient(assertion: assertion, type: type, clientId: clientId)
    }
    public func requireClient(_ id: String?) throws -> ClientApplication { try engine.requireClient(id) }
}
