import Foundation
import Hummingbird
import LatchkeyCore

/// `auth/providers/local-userpass/*` and the profile.
extension AppServicesRoutes {
    func register(_ body: AppServicesBody, _ caller: CallerInfo, _ app: String) async throws -> Response {
        try await engine.register(appId: app, email: body.email, password: body.password, caller: caller)
        return Response(status: .created, headers: [.cacheControl: "no-store"])
    }

    func confirm(_ body: AppServicesBody, _ caller: CallerInfo, _ app: String) async throws -> Response {
        try await engine.confirm(appId: app, token: body.token, tokenId: body.tokenId, caller: caller)
        return Self.done
    }

    func confirmSend(_ body: AppServicesBody, _ caller: CallerInfo, _ app: String) async throws -> Response {
        try await engine.resendConfirmation(appId: app, email: body.email, caller: caller)
        return Self.done
    }

    func confirmCall(_ body: AppServicesBody, _ caller: CallerInfo, _ app: String) async throws -> Response {
        try await engine.retryConfirmation(appId: app, email: body.email, caller: caller)
        return Self.done
    }

    func reset(_ body: AppServicesBody, _ caller: CallerInfo, _ app: String) async throws -> Response {
        try await engine.resetPassword(appId: app, token: body.token, tokenId: body.tokenId,
                                       password: body.password, caller: caller)
        return Self.done
    }

    func resetSend(_ body: AppServicesBody, _ caller: CallerInfo, _ app: String) async throws -> Response {
        try await engine.sendPasswordReset(appId: app, email: body.email, caller: caller)
        return Self.done
    }

    func resetCall(_ body: AppServicesBody, _ caller: CallerInfo, _ app: String) async throws -> Response {
        try await engine.callResetFunction(appId: app, email: body.email, password: body.password,
                                           arguments: body.arguments ?? [], caller: caller)
        return Self.done
    }

    func login(_ body: AppServicesBody, _ caller: CallerInfo, _ app: String) async throws -> Response {
        Self.loginAnswer(try await engine.appLogin(appId: app, username: body.username, password: body.password, caller: caller))
    }

    func profile(_ accessToken: String?) async throws -> Response {
        JSONResponse.ok(try await engine.appProfile(accessToken: accessToken))
    }
}
