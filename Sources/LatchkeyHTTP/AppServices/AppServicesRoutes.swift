import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import NIOCore

/// The App Services email/password dialect (docs/app-services.md) under `/api/client/v2.0`.
struct AppServicesRoutes: Sendable {
    let engine: any AppServicesSurface
    let clientAddress: ClientAddress
    let errors: AppServicesError
    typealias Handler = @Sendable (AppServicesBody, CallerInfo, String) async throws -> Response
    static let prefix = "/api/client/v2.0"

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        let group = router.group(RouterPath(Self.prefix)).add(middleware: DialectErrorMiddleware(errors))
        group.get("app/:app/location") { _, context in
            _ = try engine.requireApp(context.parameters.get("app") ?? "")
            let host = engine.settings.publicURL
            let ws = host.replacingOccurrences(of: "https://", with: "wss://").replacingOccurrences(of: "http://", with: "ws://")
            return JSONResponse.ok(["deployment_model": "GLOBAL", "location": "US-VA", "hostname": .string(host), "ws_hostname": .string(ws)])
        }
        let provider: [(String, Handler)] = [
            ("register", register), ("confirm", confirm), ("confirm/send", confirmSend), ("confirm/call", confirmCall),
            ("reset", reset), ("reset/send", resetSend), ("reset/call", resetCall), ("login", login),
        ]
        for (path, handler) in provider {
            group.post("app/:app/auth/providers/:provider/\(path)") { request, context in
                let app = context.parameters.get("app") ?? ""
                _ = try engine.requireApp(app)
                let provider = context.parameters.get("provider") ?? ""
                let caller = clientAddress.caller(request, context: context)
                if path == "login", provider == "custom-function" { return try await functionLogin(request, context, caller, app) }
                let body = try await request.decode(as: AppServicesBody.self, context: context)
                if path == "login", AppServicesService.isAppIdentityProvider(provider) {
                    return try await identityLogin(provider, body, request, caller, app)
                }
                if path == "login", provider == "local-userpass", request.uri.queryParameters.get("link") == "true" {
                    return try await linkPassword(body, request, caller, app)
                }
                guard provider == "local-userpass" else {
                    return AppServicesError.body(.notFound, "AuthProviderNotFound", "authentication provider not found")
                }
                return try await handler(body, caller, app)
            }
        }
        group.post("auth/session") { request, _ in
            JSONResponse.ok(["access_token": .string(try await engine.appRefresh(refreshToken: BearerToken.read(request)))])
        }
        group.delete("auth/session") { request, context in
            try await engine.appLogout(refreshToken: BearerToken.read(request), caller: clientAddress.caller(request, context: context))
            return Response(status: .noContent)
        }
        group.get("auth/profile") { request, _ in
            try await self.profile(BearerToken.read(request))
        }
        addApiKeyRoutes(to: group)
        addFunctionRoutes(to: group)
        group.delete("auth/delete") { request, context in
            try await engine.appDeleteUser(accessToken: BearerToken.read(request), caller: clientAddress.caller(request, context: context))
            return Self.done
        }
    }

    /// A successful call with no body: 200 and no Content-Type (realm-web reads "no Content-Type" as no body).
    static var done: Response { Response(status: .ok, headers: [.cacheControl: "no-store"]) }
}
