import Foundation

/// Finding and authenticating the client a request names: the native API's and the OpenID provider's token endpoints.
public protocol ClientAuthenticating: Sendable {
    var settings: EngineSettings { get }
    func authenticateClient(id: String?, secret: String?) throws -> ClientApplication
    func requireClient(_ id: String?) throws -> ClientApplication
}

