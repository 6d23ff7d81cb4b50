import Foundation

/// The credential fields of an App Services login body other than email and password.
public struct AppCredential: Sendable {
    /// `oauth2-apple` and `oauth2-google` (the `id_token` form).
    public var idToken: String?
    /// `api-key`: a user's or a server key.
    public var key: String?
    /// `oauth2-google`: a server auth code, exchanged for an ID token at Google's token endpoint.
    public var authCode: String?
    /// `custom-token`: the operator's JWT.
    public var token: String?
    /// `custom-function`: the whole payload, Extended JSON already read (no `provider`, no `options`).
    public var payload: [String: JSONValue]?
    public init(idToken: String? = nil, authCode: String? = nil, key: String? = nil, token: String? = nil,
                payload: [String: JSONValue]? = nil) {
        self.idToken = idToken; self.authCode = authCode; self.key = key; self.token = token; self.payload = payload
    }
}

/// App Services logins through identities: `anon-user`, `oauth2-apple`, `oauth2-google`, each also as a link
/// (`?link=true`) onto the account of the access token presented.
extension AppServicesService {
    /// App Services provider types and the engine's provider names.
    static let appProviderNames = ["anon-user": VerifiedIdentity.anonymousProvider, "oauth2-apple": "apple", "oauth2-google": "google"]

    /// The App Services provider type an identity is listed under in the profile.
    public func appProviderType(_ provider: String) -> String {
        if settings.identities.customJWT[provider] != nil { return "custom-token" }
        return Self.appProviderNames.first { $0.value == provider }?.key ?? provider
    }

    /// Whether `type` is an identity provider type this server serves (other than `local-userpass`).
    public static func isAppIdentityProvider(_ type: String) -> Bool {
        appProviderNames[type] != nil || ["api-key", "custom-token", "custom-function"].contains(type)
    }

    public func appIdentityLogin(appId: String, providerType: String, credential: AppCredential, caller: CallerInfo) async throws -> AppLogin {
        let app = try requireApp(appId)
        if providerType == "api-key" {
            guard app.providers.contains(providerType) else { throw LatchkeyError.providerNotEnabled(providerType) }
            // A user key signs in as its owner, a server key as the account made with it.
            var (key, user) = try await apiKeyAccount(credential.key, app: app, caller: caller)
            // Like a refresh: one write joining the group commit (the session with the sign-in's record), no transaction.
            let note = PendingNote(engine.accounts.signInNote(&user, method: "api-key \(key.id)", amr: AuthenticationMethods.apiKey, caller: caller))
            let signedIn = user
            let login = try await engine.standaloneWrite { direct in
                try await self.openAppSession(for: signedIn, app: app, amr: AuthenticationMethods.apiKey, note: note, caller: caller, in: direct)
            }
            EngineMetrics.signIn(caller.dialect, "success")
            return login
        }
        let identity = try await appIdentity(app: app, providerType: providerType, credential: credential, caller: caller)
        let anonymous = identity.provider == VerifiedIdentity.anonymousProvider
        return try await engine.identity.signIn(with: identity, caller: caller) { login, tx in
            try await self.openAppSession(for: login.user, app: app, amr: AuthenticationMethods.identity(identity.provider), anonymous: anonymous,
                                    note: login.pending, caller: caller, in: tx)
        }
    }

    /// `?link=true`: adds the identity to the access token's account. The session stays (the SDK keeps its refresh
    /// token); the answer is a new access token for the same user and device.
    public func appLink(appId: String, providerType: String, credential: AppCredential, accessToken: String?,
                        caller: CallerInfo) async throws -> AppLogin {
        let app = try requireApp(appId)
        let linking = try await linkingSession(accessToken, app: app)
        // As the hosted service: neither an anonymous identity nor an API key joins an account.
        if providerType == "anon-user" || providerType == "api-key" { throw LatchkeyError.linkRefused }
        let identity = try await appIdentity(app: app, providerType: providerType, credential: credential, caller: caller)
        try await transaction { tx in
            guard let current = try await tx.users.find(id: linking.user.id), current.status == .active else { throw LatchkeyError.sessionInvalid }
            try await engine.identity.link(identity, to: current, caller: caller, in: tx)
        }
        return try linking.answer(self)
    }

    /// The session a link is made in: the access token's account, session and device, for this app.
    struct LinkingSession {
        var user: UserRecord
        var app: AppServicesApp
        var sessionId: String
        var deviceId: String
        /// How the session's sign-in was proven: linking adds a way in, it proves nothing new about this sign-in.
        var amr: [String]?
        var customData: [String: JSONValue]?

        /// A link answers only a new access token for the same user, session and device: the SDK keeps its refresh token.
        func answer(_ service: AppServicesService) throws -> AppLogin {
            AppLogin(accessToken: try service.appAccessToken(user: user, appId: app.id, sessionId: sessionId, deviceId: deviceId, amr: amr,
                                                             customData: customData),
                     refreshToken: "", userId: user.id, deviceId: deviceId)
        }
    }

    func linkingSession(_ accessToken: String?, app: AppServicesApp) async throws -> LinkingSession {
        guard let accessToken else { throw LatchkeyError.sessionInvalid }
        let (claims, user) = try await engine.tokens.authenticatedAccess(accessToken, audience: .appServices)
        guard claims.aud == app.id, let sessionId = claims.sid else { throw LatchkeyError.sessionInvalid }
        return LinkingSession(user: user, app: app, sessionId: sessionId, deviceId: claims.baas_device_id ?? "000000000000000000000000",
                              amr: claims.amr, customData: try await reader.customData.customDocument(userId: user.id, appId: app.id))
    }

    /// Runs the provider's strategy (outside any transaction: an ID token may need the issuer's keys fetched).
    private func appIdentity(app: AppServicesApp, providerType: String, credential: AppCredential,
                             caller: CallerInfo) async throws -> VerifiedIdentity {
        guard app.providers.contains(providerType) else { throw LatchkeyError.providerNotEnabled(providerType) }
        switch providerType {
        case "custom-token":
            try await limit(.credentialPerIP, caller.ip, caller: caller)
            return try await engine.identity.verifyIDToken(credential.token, provider: app.customToken ?? "")
        case "custom-function":
            try await limit(.credentialPerIP, caller.ip, caller: caller)
            return try await engine.identity.functionIdentity(app.customFunction, payload: credential.payload ?? [:])
        default: break
        }
        guard let provider = Self.appProviderNames[providerType] else { throw LatchkeyError.providerNotEnabled(providerType) }
        if provider == VerifiedIdentity.anonymousProvider {
            // Each anonymous login makes an account: limited like sign-ups.
            try await limit(.signUpPerIP, caller.ip, caller: caller)
            return try engine.identity.anonymousIdentity()
        }
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        if credential.idToken == nil, let code = credential.authCode {
            return try await engine.identity.verifyIDToken(try await engine.identity.exchangeCode(code, provider: provider), provider: provider)
        }
        return try await engine.identity.verifyIDToken(credential.idToken, provider: provider)
    }
}

extension AppServicesService {
    /// `DELETE auth/delete`: the access token's account goes, with its identities and sessions.
    public func appDeleteUser(accessToken: String?, caller: CallerInfo) async throws {
        guard let accessToken else { throw LatchkeyError.sessionInvalid }
        let user = try await engine.tokens.userForAccessToken(accessToken, audience: .appServices)
        try await transaction { tx in
            try await tx.users.delete(id: user.id)
            try await self.audit(tx, "account_deleted", caller: caller, userId: user.id, email: user.email, detail: "app_services")
        }
    }
}

extension AppServicesService {
    /// `local-userpass` with `?link=true`: the SDK registers the address first (an account of its own here), then links
    /// it. The address and password move onto the access token's account, which keeps its id and data, and the
    /// registration's account goes. A registration anyone has signed into, or that holds identities of its own, is
    /// another user's: `.identityTaken`.
    public func appLinkPassword(appId: String, username: String?, password: String?, accessToken: String?,
                                caller: CallerInfo) async throws -> AppLogin {
        let linking = try await linkingSession(accessToken, app: try requireApp(appId))
        let target = linking.user
        guard target.passwordHash == nil, target.email == nil else { throw LatchkeyError.providerAlreadyLinked }
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        guard let password, !password.isEmpty else { throw LatchkeyError.invalidCredentials }
        guard let email = username.flatMap(EmailAddress.normalize), let registered = try await reader.users.find(email: email),
              registered.status == .active else {
            try await engine.accounts.refuseAfterDummyCheck(password)
        }
        _ = try await engine.accounts.checkPassword(password, for: registered, caller: caller)
        try await transaction { tx in
            guard let source = try await tx.users.find(id: registered.id), var user = try await tx.users.find(id: target.id),
                  user.status == .active else { throw LatchkeyError.sessionInvalid }
            guard source.id != user.id else { return }
            guard source.lastLoginAt == nil, try await tx.identities.identities(userId: source.id).isEmpty else {
                throw LatchkeyError.identityTaken
            }
            try await tx.users.delete(id: source.id)
            user.email = source.email
            user.passwordHash = source.passwordHash
            user.emailVerified = source.emailVerified
            user.updatedAt = self.time.now()
            try await tx.users.update(user)
            try await self.audit(tx, "identity_linked", caller: caller, userId: user.id, email: user.email, detail: "local-userpass")
        }
        return try linking.answer(self)
    }
}
