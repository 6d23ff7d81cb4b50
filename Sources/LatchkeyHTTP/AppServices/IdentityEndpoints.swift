import Foundation
import Hummingbird
import LatchkeyCore

/// `auth/providers/{anon-user,oauth2-apple,oauth2-google}/login[?link=true]` and the profile's identities.
extension AppServicesRoutes {
    func identityLogin(_ provider: String, _ body: AppServicesBody, _ request: Request, _ caller: CallerInfo,
                       _ app: String) async throws -> Response {
        try await identityLogin(provider, AppCredential(idToken: body.idToken, authCode: body.authCode, key: body.key, token: body.token), request, caller, app)
    }

    /// `custom-function`: the body is the caller's own payload (Extended JSON), without `provider`; the SDK adds
    /// `options`, which is not the function's.
    func functionLogin(_ request: Request, _ context: LatchkeyRequestContext, _ caller: CallerInfo, _ app: String) async throws -> Response {
        let payload = try await request.decode(as: FunctionPayload.self, context: context).fields
        let plain = payload.filter { $0.key != "options" && $0.key != "provider" }.mapValues(ExtendedJSON.plain)
        return try await identityLogin("custom-function", AppCredential(payload: plain), request, caller, app)
    }

    private func identityLogin(_ provider: String, _ credential: AppCredential, _ request: Request, _ caller: CallerInfo,
                               _ app: String) async throws -> Response {
        if request.uri.queryParameters.get("link") == "true" {
            // A link answers only a new access token: the SDK keeps its refresh token and user.
            let login = try await engine.appLink(appId: app, providerType: provider, credential: credential,
                                                 accessToken: BearerToken.read(request), caller: caller)
            return JSONResponse.ok(["access_token": .string(login.accessToken), "user_id": .string(login.userId),
                                    "device_id": .string(login.deviceId)])
        }
        let login = try await engine.appIdentityLogin(appId: app, providerType: provider, credential: credential, caller: caller)
        return Self.loginAnswer(login)
    }

    /// Any JSON object.
    struct FunctionPayload: JSONObjectBody, Sendable {
        var fields: [String: JSONValue]
        init(from decoder: any Decoder) throws { fields = try [String: JSONValue](from: decoder) }
    }

    /// `local-userpass/login?link=true`: the registered address and password join the access token's user.
    func linkPassword(_ body: AppServicesBody, _ request: Request, _ caller: CallerInfo, _ app: String) async throws -> Response {
        let login = try await engine.appLinkPassword(appId: app, username: body.username, password: body.password,
                                                     accessToken: BearerToken.read(request), caller: caller)
        return JSONResponse.ok(["access_token": .string(login.accessToken), "user_id": .string(login.userId),
                                "device_id": .string(login.deviceId)])
    }

    static func loginAnswer(_ login: AppLogin) -> Response {
        JSONResponse.ok(["access_token": .string(login.accessToken), "refresh_token": .string(login.refreshToken),
                         "user_id": .string(login.userId), "device_id": .string(login.deviceId)])
    }
}
