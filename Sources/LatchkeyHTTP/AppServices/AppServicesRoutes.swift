import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import NIOCore

/// The App Services email/password dialect (specs/app-services.md) under `/api/client/v2.0`.
struct AppServicesRoutes: Sendable {
    let engine: LatchkeyEngine
    let clientAddress: ClientAddress
    typealias Handler = @Sendable (AppServicesBody, CallerInfo, String) async throws -> Response

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        let base = "/api/client/v2.0"
        router.get("\(base)/app/:app/location") { _, context in
            let app = context.parameters.get("app") ?? ""
            guard (try? engine.requireApp(app)) != nil else { return AppServicesError.response(for: .unknownApp, appId: app) }
            let host = engine.settings.publicURL
            let ws = host.replacingOccurrences(of: "https://", with: "wss://").replacingOccurrences(of: "http://", with: "ws://")
            return JSONResponse.ok(["deployment_model": "GLOBAL", "location": "US-VA", "hostname": .string(host), "ws_hostname": .string(ws)])
        }
        let provider: [(String, Handler)] = [
            ("register", register), ("confirm", confirm), ("confirm/send", confirmSend), ("confirm/call", confirmCall),
            ("reset", reset), ("reset/send", resetSend), ("reset/call", resetCall), ("login", login),
        ]
        for (path, handler) in provider {
            router.post("\(base)/app/:app/auth/providers/:provider/\(path)") { request, context in
                try await self.handle(request, context: context, handler)
            }
        }
        router.post("\(base)/auth/session") { request, _ in
            await Self.answer(nil) { JSONResponse.ok(["access_token": .string(try await engine.appRefresh(refreshToken: BearerToken.read(request)))]) }
        }
        router.delete("\(base)/auth/session") { request, context in
            await Self.answer(nil) {
                let caller = self.clientAddress.caller(request, context: context)
                try await engine.appLogout(refreshToken: BearerToken.read(request), caller: caller)
                return Response(status: .noContent)
            }
        }
        router.get("\(base)/auth/profile") { request, _ in
            await Self.answer(nil) { try await self.profile(BearerToken.read(request)) }
        }
    }

    private func handle(_ request: Request, context: LatchkeyRequestContext, _ handler: Handler) async throws -> Response {
        let app = context.parameters.get("app") ?? ""
        return await Self.answer(app) {
            _ = try engine.requireApp(app)
            guard context.parameters.get("provider") == "local-userpass" else {
                return AppServicesError.body(.notFound, "AuthProviderNotFound", "authentication provider not found")
            }
            let body = try await Self.jsonBody(request, context: context)
            return try await handler(body, clientAddress.caller(request, context: context), app)
        }
    }


    private static func answer(_ app: String?, _ body: () async throws -> Response) async -> Response {
        do { return try await body() } catch let error as LatchkeyError {
            return AppServicesError.response(for: error, appId: app)
        } catch let error as HTTPResponseError where error.status == .contentTooLarge {
            return AppServicesError.body(.contentTooLarge, "BadRequest", "request body too large")
        } catch {
            return AppServicesError.body(.badRequest, "BadRequest", "invalid request body")
        }
    }

    /// The JSON object body (Extended JSON is plain JSON here), shape-checked before decoding; empty counts as `{}`.
    static func jsonBody(_ request: Request, context: LatchkeyRequestContext) async throws -> AppServicesBody {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        if buffer.readableBytes == 0 { return AppServicesBody() }
        guard let body = JSONValue.decodeUntrusted(AppServicesBody.self, from: Data(buffer: buffer)) else {
            throw LatchkeyError.invalidParameter("request body must be a JSON object of the provider's fields")
        }
        return body
    }


    /// A successful call with no body: 200 and no Content-Type (realm-web reads "no Content-Type" as no body).
    static var done: Response { Response(status: .ok, headers: [.cacheControl: "no-store"]) }
}
