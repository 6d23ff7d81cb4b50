import Hummingbird
import LatchkeyCore

/// `POST /oauth2/v2.0/token` (also under a tenant): one path for two surfaces. The client is authenticated first
/// (`client_secret_basic` or `_post` for a confidential one, RFC 6749 §2.3.1); then the OAuth grants
/// (`authorization_code`, `refresh_token`) are the token endpoint's own and the grants of MSAL's native journey go to
/// the native API's routes. Errors come in the native error body, which is RFC 6749 §5.2's with MSAL's codes added.
struct TokenEndpointRoutes: Sendable {
    let tokens: any TokenEndpointSurface
    let native: NativeAuthRoutes
    let clientAddress: ClientAddress

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        let group = router.group().add(middleware: DialectErrorMiddleware(NativeAuthErrors()))
        for prefix in ["", "/:tenant"] {
            group.post("\(prefix)/oauth2/v2.0/token") { request, context in
                let form = try await request.decodeForm(as: NativeAuthForm.self, context: context)
                let client = try await ClientCredentials.authenticate(request, clientId: form.clientId, clientSecret: form.clientSecret,
                                                              assertion: form.clientAssertion, assertionType: form.clientAssertionType,
                                                              engine: tokens)
                // Recorded as the surface that served it: the end of a browser sign-in is the OpenID provider's; one
                // refresh grant serves both, a web app's sessions being the provider's and a native app's the native API's.
                let browser = form.grantType == "authorization_code" || form.grantType == GrantType.deviceCode.rawValue
                    || (form.grantType == "refresh_token" && client.signsInOnlyThroughBrowser)
                let caller = clientAddress.serving(browser ? .openID : .native).caller(request, context: context, clientId: client.id)
                switch form.grantType {
                case "authorization_code":
                    return NativeAuthRoutes.tokenResponse(try await tokens.exchangeAuthorizationCode(
                        code: form.code, redirectUri: form.redirectUri, codeVerifier: form.codeVerifier, resource: form.resource, client: client,
                        caller: caller))
                case GrantType.deviceCode.rawValue:
                    return NativeAuthRoutes.tokenResponse(try await tokens.exchangeDeviceCode(form.deviceCode, resource: form.resource, client: client,
                                                                                              caller: caller))
                case "refresh_token":
                    return NativeAuthRoutes.tokenResponse(try await tokens.refresh(refreshToken: form.refreshToken, scope: form.scope,
                                                                                   resource: form.resource, caller: caller))
                default:
                    return try await native.token(form, caller)
                }
            }
            // The device authorization endpoint (RFC 8628 §3.1), named as Microsoft's is.
            group.post("\(prefix)/oauth2/v2.0/devicecode") { request, context in
                let form = try await request.decodeForm(as: NativeAuthForm.self, context: context)
                let client = try await ClientCredentials.authenticate(request, clientId: form.clientId, clientSecret: form.clientSecret,
                                                              assertion: form.clientAssertion, assertionType: form.clientAssertionType,
                                                              engine: tokens)
                let caller = clientAddress.serving(.openID).caller(request, context: context, clientId: client.id)
                let device = try await tokens.startDeviceAuthorization(client: client, scope: form.scope, resource: form.resource, caller: caller)
                return JSONResponse.make(.ok, ["device_code": .string(device.deviceCode), "user_code": .string(device.userCode),
                                               "verification_uri": .string(device.verificationURI),
                                               "verification_uri_complete": .string(device.verificationURIComplete),
                                               "expires_in": .int(device.expiresIn), "interval": .int(device.interval)])
            }
        }
    }
}
