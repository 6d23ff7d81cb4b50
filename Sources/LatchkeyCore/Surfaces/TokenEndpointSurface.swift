import Foundation

/// The OAuth 2.0 token endpoint's own grants (RFC 6749): an authorization code the provider's pages issued, and a
/// refresh token, for every client (a confidential one authenticated by its secret). MSAL's native grants are the
/// native API's (`NativeAuthSurface`); the path is shared, the use cases are not. `resource` is RFC 8707's.
public protocol TokenEndpointSurface: ClientAuthenticating {
    func exchangeAuthorizationCode(code: String?, redirectUri: String?, codeVerifier: String?, resource: String?, client: ClientApplication,
                                   caller: CallerInfo) async throws -> TokenSet
    func refresh(refreshToken: String?, scope: String?, resource: String?, caller: CallerInfo) async throws -> TokenSet
    func startDeviceAuthorization(client: ClientApplication, scope: String?, resource: String?, caller: CallerInfo) async throws
        -> DeviceAuthorization
    func registerClient(_ metadata: [String: JSONValue], initialToken: String?, caller: CallerInfo) async throws -> ClientRegistration
    func registeredClient(id: String, registrationToken: String?) async throws -> ClientRegistration
    func deleteRegisteredClient(id: String, registrationToken: String?, caller: CallerInfo) async throws
    func exchangeDeviceCode(_ deviceCode: String?, resource: String?, client: ClientApplication, caller: CallerInfo) async throws -> TokenSet
}
