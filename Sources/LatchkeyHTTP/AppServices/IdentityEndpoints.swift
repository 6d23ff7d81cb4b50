import Foundation
import Hummingbird
import LatchkeyCore

/// `auth/providers/{anon-user,oauth2-apple,oauth2-google}/login[?link=true]` and the profile's identities.
extension AppServicesRoutes {
    func identityLogin(_ provider: String, _ body: AppServicesBody, _ request: Request, _ caller: CallerInfo,
                       _ app: String) async throws -> Response {
        let credential = AppCredential(idToken: body.idToken, key: body.key)
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

    static func loginAnswer(_ login: AppLogin) -> Response {
        JSONResponse.ok(["access_token": .string(login.accessToken), "refresh_token": .string(login.refreshToken),
                         "user_id": .string(login.userId), "device_id": .string(login.deviceId)])
    }
}
