import Foundation

/// The OAuth 2.0 token endpoint's own grants (RFC 6749): an authorization code the provider's pages issued, and a
/// refresh token, for every client (a confidential one authenticated by its secret). MSAL's native grants are the
/// native API's (`NativeAuthSurface`); the path is shared, the use cases are not.
public protocol TokenEndpointSurface: ClientAuthenticating {
    func exchangeAuthorizationCode(code: String?, redirectUri: String?, codeVerifier: String?, client: ClientApplication,
                                   caller: CallerInfo) async throws -> TokenSet
    func refresh(refreshToken: String?, scope: String?, caller: CallerInfo) async throws -> TokenSet
    func startDeviceAuthorization(client: ClientApplication, scope: String?, caller: CallerInfo) async throws -> DeviceAuthorization
    func exchangeDeviceCode(_ deviceCode: String?, client: ClientApplication, caller: CallerInfo) async throws -> TokenSet
}
