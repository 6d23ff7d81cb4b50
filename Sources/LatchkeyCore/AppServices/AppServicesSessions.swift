import Foundation

/// What an App Services login answers.
public struct AppLogin: Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    public var userId: String
    public var deviceId: String
}

/// App Services sessions: a login creates a server-side session (its refresh token a JWT, 60 days, revocable);
/// access tokens are 30-minute ES256 JWTs from the same keys the JWKS publishes.
extension AppServicesService {
    static let appSessionScope = "app_services"

    public func appLogin(appId: String, username: String?, password: String?, caller: CallerInfo) async throws -> AppLogin {
        let app = try requireApp(appId)
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        guard let password, !password.isEmpty else { throw LatchkeyError.invalidCredentials }
        guard let email = username.flatMap(EmailAddress.normalize), let user = try await reader.users.find(email: email),
              user.status != .disabled else {
            try await engine.accounts.refuseAfterDummyCheck(password)
        }
        let rehash = try await engine.accounts.checkPassword(password, for: user, caller: caller)
        // Only after the password matched: a pending account is no secret to its owner.
        guard user.status == .active else {
            try await engine.accounts.releasePasswordAttempt(userId: user.id)
            throw LatchkeyError.userPendingConfirmation
        }
        return try await transaction { tx in
            guard let stored = try await tx.users.find(id: user.id) else { throw LatchkeyError.invalidCredentials }
            let current = try await engine.accounts.recordSignIn(stored, rehash: rehash, method: "app_services password", amr: AuthenticationMethods.password, caller: caller, in: tx)
            return try await self.openAppSession(for: current, app: app, amr: AuthenticationMethods.password, caller: caller, in: tx)
        }
    }

    /// A new App Services session for `user`: its refresh token (a JWT, `AppRefreshTokens`, stored as a key made of
    /// its issue time and HMAC) and a first access token. Anonymous sessions live `appAnonymousSessionTTLSeconds`,
    /// as the hosted service's anonymous sessions outlive the others (idle anonymous accounts are purged apart).
    func openAppSession(for user: UserRecord, app: AppServicesApp, amr: [String], anonymous: Bool = false, note: PendingNote? = nil,
                        caller: CallerInfo, in tx: any Repositories) async throws -> AppLogin {
        let now = time.now()
        let (jti, _) = engine.tokens.newSessionToken(at: now)
        let sessionId = SecureRandom.bytes(12).hex
        let deviceId = SecureRandom.bytes(12).hex
        let expiresAt = now + Double(anonymous ? settings.appAnonymousSessionTTLSeconds : settings.appSessionTTLSeconds)
        let refresh = keys.appRefreshTokens.mint(.init(sessionId: sessionId, userId: user.id, deviceId: deviceId, domainId: engine.tenantId,
                                                  jti: jti, issuedAt: now, expiresAt: expiresAt, amr: amr))
        let session = SessionRecord(
            id: sessionId, familyId: sessionId, userId: user.id, kind: .appServices, audience: app.id, scope: Self.appSessionScope,
            tokenHash: engine.tokens.sessionKey(refresh, prefix: Tokens.timePrefix(of: jti)), createdAt: now, expiresAt: expiresAt, deviceId: deviceId,
            ip: caller.ip, userAgent: caller.userAgent)
        if let note = note?.take() { try await tx.sessions.insert(session, noting: note) } else { try await tx.sessions.insert(session) }
        let customData = try await tx.customData.customDocument(userId: user.id, appId: app.id)
        return AppLogin(accessToken: try appAccessToken(user: user, appId: app.id, sessionId: sessionId, deviceId: deviceId, amr: amr,
                                                        customData: customData),
                        refreshToken: refresh, userId: user.id, deviceId: deviceId)
    }

    /// `POST auth/session`: a new access token for a live session (the refresh token is not rotated: the SDKs keep it).
    public func appRefresh(refreshToken: String?) async throws -> String {
        let (session, user) = try await liveAppSession(refreshToken)
        return try appAccessToken(user: user, appId: session.audience, sessionId: session.id,
                                  deviceId: session.deviceId ?? "000000000000000000000000",
                                  amr: refreshToken.flatMap(keys.appRefreshTokens.amr(of:)),
                                  customData: try await reader.customData.customDocument(userId: user.id, appId: session.audience))
    }

    /// `DELETE auth/session`: ends the session; access tokens already issued live until they expire.
    public func appLogout(refreshToken: String?, caller: CallerInfo) async throws {
        let (session, user) = try await liveAppSession(refreshToken)
        try await transaction { tx in
            try await tx.sessions.revoke(familyId: session.familyId, at: self.time.now())
            try await self.audit(tx, "sign_out", caller: caller, userId: user.id, email: user.email, detail: "app_services")
        }
    }

    func liveAppSession(_ refreshToken: String?) async throws -> (SessionRecord, UserRecord) {
        guard let refreshToken, !refreshToken.isEmpty else { throw LatchkeyError.sessionInvalid }
        let now = time.now()
        guard let (session, user) = try await engine.tokens.findSession(token: refreshToken), session.kind == .appServices,
              session.revokedAt == nil, session.expiresAt > now, user.status == .active
        else { throw LatchkeyError.sessionInvalid }
        return (session, user)
    }

    /// An access token for the session; `amr` and `acr` say how its sign-in was proven (absent for sessions opened
    /// before they were recorded), `user_data` is the account's custom data for the app (absent when it has none).
    func appAccessToken(user: UserRecord, appId: String, sessionId: String, deviceId: String, amr: [String]?,
                        customData: [String: JSONValue]?) throws -> String {
        let iat = Int(time.now().timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(settings.issuer), "sub": .string(user.id), "aud": .string(appId), "iat": .int(iat), "nbf": .int(iat),
            "exp": .int(iat + settings.appAccessTTLSeconds), "typ": "access", "scp": .string(Self.appSessionScope),
            "sid": .string(sessionId), "baas_device_id": .string(deviceId), "tid": .string(engine.tenantId), "ver": "2.0",
        ]
        if let customData { claims["user_data"] = .object(customData) }
        if let amr {
            claims["amr"] = .array(amr.map { .string($0) })
            claims["acr"] = .string(AuthenticationMethods.acr(amr))
        }
        // An access token (RFC 9068 `at+jwt`), so no verifier takes it for an ID token; realm-core reads only its payload.
        return try JWT.sign(claims: claims, key: keyRing.current, accessToken: true)
    }
}
