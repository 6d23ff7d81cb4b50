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

    /// Every way into the account, in link order. realm-core counts a user as anonymous exactly when the only one
    /// listed is `anon-user`.
    func profile(_ accessToken: String?) async throws -> Response {
        guard let accessToken else { throw LatchkeyError.sessionInvalid }
        let user = try await engine.userForAccessToken(accessToken, audience: .appServices)
        var identities: [JSONValue] = []
        var isServer = false
        // In link order: identities the account was made with, then its email and password, then later links.
        let linked = try await engine.identities(of: user)
        let bornWith = linked.filter { $0.createdAt <= user.createdAt }, later = linked.filter { $0.createdAt > user.createdAt }
        func list(_ records: [IdentityRecord]) {
            for identity in records {
                isServer = isServer || identity.provider == "api-key"
                let type = engine.appProviderType(identity.provider)
                identities.append(.object(["id": .string(identity.subject), "provider_type": .string(type), "provider_id": .string(type)]))
            }
        }
        list(bornWith)
        if user.passwordHash != nil, let email = user.email {
            // A stable identity id distinct from the user id, as the hosted service has.
            let id = String(Digest.sha256(Array("identity:local-userpass:\(user.id)".utf8)).hex.prefix(24))
            identities.append(.object(["id": .string(id), "provider_type": "local-userpass", "provider_id": "local-userpass",
                                       "provider_data": .object(["email": .string(email)])]))
        }
        list(later)
        // Profile values must be strings (realm-core reads them as such).
        var data: [String: JSONValue] = [:]
        if let email = user.email { data["email"] = .string(email) }
        if case .string(let name)? = user.attributes["name"] { data["name"] = .string(name) }
        // Fields mapped from a custom JWT's claims; the account's own address wins.
        for (field, value) in user.attributes[Identities.profileAttribute]?.objectValue ?? [:] where data[field] == nil {
            if case .string(let text) = value { data[field] = .string(text) }
        }
        return JSONResponse.ok([
            "user_id": .string(user.id), "domain_id": .string(engine.tenantId), "type": isServer ? "server" : "normal",
            "identities": .array(identities), "data": .object(data),
        ])
    }
}
