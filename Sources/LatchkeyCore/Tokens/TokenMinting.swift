import Foundation

/// What a successful sign-in or refresh hands the client.
public struct TokenSet: Sendable, Equatable {
    public var accessToken: String
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: Int
    public var scope: String
    public var userId: String
    public var tenantId: String
}

/// Which kind of access token an endpoint takes: each dialect's tokens open only that dialect's endpoints.
public enum AccessTokenAudience: Sendable {
    /// Native API access tokens (audience: a registered client id): `/oidc/userinfo`.
    case nativeClients
    /// App Services session access tokens (audience: a configured app id): `auth/profile`.
    case appServices
    /// Native tokens for a client or for a configured resource (RFC 8707): introspection, which tells a client about
    /// its own tokens whoever they are for.
    case nativeOrResources
}

/// Access and ID tokens are ES256 JWTs; refresh tokens are random, stored as HMACs (`SessionTokens`), rotated on every use.
extension Tokens {
    static let defaultScopes = ["openid", "profile", "offline_access"]
    /// What discovery advertises; a client may be granted more through `clients[].scopes`.
    public static let standardScopes = ["openid", "profile", "email", "offline_access"]

    /// The scopes a token request asks for, or `.invalidScope` naming the first one this client may not have.
    func grantedScopes(_ raw: String?, client: ClientApplication, resource: ProtectedResource? = nil) throws -> [String] {
        let scopes = Self.parseScopes(raw)
        if let refused = Self.refusedScope(scopes, client: client, resource: resource) { throw LatchkeyError.invalidScope(refused) }
        return scopes
    }

    /// The first scope of `scopes` a request may not ask for: beyond the standard ones, a client has its own
    /// (`clients[].scopes`) and those of the resource it asks a token for.
    static func refusedScope(_ scopes: [String], client: ClientApplication, resource: ProtectedResource?) -> String? {
        scopes.first { !standardScopes.contains($0) && !client.scopes.contains($0) && resource?.scopes.contains($0) != true }
    }

    func issueTokens(for user: UserRecord, client: ClientApplication, scope: String?, familyId: String?, parentId: String? = nil,
                     authentication: Authentication? = nil, caller: CallerInfo, in tx: any Repositories) async throws -> TokenSet {
        let scopes = try grantedScopes(scope, client: client)
        let refresh = scopes.contains("offline_access")
            ? newRefreshToken(for: user, client: client, scopes: scopes, familyId: familyId, parentId: parentId, caller: caller) : nil
        if let refresh { try await tx.sessions.insert(refresh.session) }
        return try signTokens(for: user, client: client, scopes: scopes, refreshToken: refresh?.token, authentication: authentication,
                              authTime: authentication?.authTime ?? refresh.flatMap { TimeOrderedID.date(of: $0.session.familyId) })
    }

    /// What an ID token from the browser sign-in says about how the user signed in (OpenID Connect Core §2).
    struct Authentication {
        var nonce: String?
        var authTime: Date
        var amr: [String]
    }

    /// A refresh token and the session row that stands for it (only its HMAC is stored).
    struct NewRefreshToken {
        let token: String
        let session: SessionRecord
    }

    func newRefreshToken(for user: UserRecord, client: ClientApplication, scopes: [String], familyId: String?,
                         parentId: String?, resource: ProtectedResource? = nil, caller: CallerInfo,
                         token given: (token: String, key: Data)? = nil) -> NewRefreshToken {
        let now = time.now()
        let (token, key) = given ?? newSessionToken(at: now)
        return NewRefreshToken(token: token, session: SessionRecord(
            // A family's id is made at its sign-in, so every access token it refreshes into still says when that was.
            id: TimeOrderedID.make(at: now), familyId: familyId ?? TimeOrderedID.make(at: now), userId: user.id,
            kind: .native, audience: client.id, scope: scopes.joined(separator: " "), tokenHash: key, createdAt: now,
            expiresAt: now + Double(settings.tokens.refreshTTLSeconds), parentId: parentId, ip: caller.ip, userAgent: caller.userAgent,
            resource: resource?.uri))
    }

    /// The signed access token (and ID token with `openid`); pure computation, kept out of write transactions.
    /// `authTime`, when known, is the sign-in the tokens come from (`auth_time` in the access token too: a step-up
    /// check reads it, RFC 9470). An access token for a resource has its URL as its only `aud` and lives as long as
    /// the resource says; the ID token is always the client's.
    func signTokens(for user: UserRecord, client: ClientApplication, scopes: [String], refreshToken: String?,
                    authentication: Authentication? = nil, authTime: Date? = nil, resource: ProtectedResource? = nil) throws -> TokenSet {
        let iat = Int(time.now().timeIntervalSince1970)
        let lifetime = resource?.accessTTLSeconds ?? settings.tokens.accessTTLSeconds
        let exp = iat + lifetime
        let key = keyRing.current
        let common: [String: JSONValue] = [
            "iss": .string(settings.issuer), "sub": .string(user.id), "oid": .string(user.id), "tid": .string(engine.tenantId),
            "aud": .string(client.id), "iat": .int(iat), "nbf": .int(iat), "exp": .int(exp), "ver": .string("2.0"),
        ]
        var access = common
        if let resource { access["aud"] = .string(resource.uri) }
        access["scp"] = .string(scopes.joined(separator: " "))
        access["azp"] = .string(client.id)
        access["jti"] = .string(SecureRandom.uuidString())
        if let authTime = authTime ?? authentication?.authTime { access["auth_time"] = .int(Int(authTime.timeIntervalSince1970)) }
        // How the sign-in was proven, for the assurance rule when the token asks for a change (RFC 9470).
        if let authentication { access["amr"] = .array(authentication.amr.map(JSONValue.string)) }
        let accessToken = try JWT.sign(claims: access, key: key, accessToken: true)

        var idToken: String?
        if scopes.contains("openid") {
            var id = common
            id["exp"] = .int(iat + settings.tokens.accessTTLSeconds)
            id.merge(Self.profileClaims(of: user, scopes: Self.claimScopes(scopes, client: client))) { _, new in new }
            if let authentication {
                if let nonce = authentication.nonce { id["nonce"] = .string(nonce) }
                id["auth_time"] = .int(Int(authentication.authTime.timeIntervalSince1970))
                id["amr"] = .array(authentication.amr.map(JSONValue.string))
                id["acr"] = .string(AuthenticationMethods.acr(authentication.amr))
                // at_hash: the left half of the access token's SHA-256 (ES256), base64url.
                id["at_hash"] = .string(Base64URL.encode(Digest.sha256(Array(accessToken.utf8)).prefix(16)))
                id["azp"] = .string(client.id)
            }
            idToken = try JWT.sign(claims: id, key: key)
        }
        return TokenSet(accessToken: accessToken, idToken: idToken, refreshToken: refreshToken,
                        expiresIn: lifetime, scope: scopes.joined(separator: " "),
                        userId: user.id, tenantId: engine.tenantId)
    }

    /// The scopes whose claims a token or userinfo carries: for a third-party client exactly the granted ones (what its
    /// user consented to); a first-party client (the operator's own apps, which never show consent) gets `profile`
    /// and `email` without asking, as MSAL, the Realm SDKs and the operator's web apps always had.
    static func claimScopes(_ scopes: [String], client: ClientApplication?) -> Set<String> {
        var granted = Set(scopes)
        if client?.firstParty != false { granted.formUnion(["profile", "email"]) }
        return granted
    }

    /// The claims `scopes` open (OpenID Connect Core §5.4): the name claims with `profile`, the address with `email`.
    /// ID tokens and userinfo both take them from here.
    static func profileClaims(of user: UserRecord, scopes: Set<String>) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [:]
        if scopes.contains("profile") {
            claims["preferred_username"] = .string(user.displayName)
            if let name = user.attributes["displayName"] { claims["name"] = name }
        }
        if scopes.contains("email"), let email = user.email {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(user.emailVerified)
        }
        return claims
    }

    /// Requested scopes plus the OIDC defaults the SDKs always add, de-duplicated, in order.
    static func parseScopes(_ raw: String?) -> [String] {
        var seen = Set<String>()
        let requested = (raw ?? "").split(whereSeparator: { $0 == " " || $0 == "+" }).map(String.init)
        return (requested.isEmpty ? defaultScopes : requested).filter { seen.insert($0).inserted }
    }

    /// The refresh grant. Rotates the token into a child derived from it (`childToken`). The same token presented
    /// again inside the grace window (a client retrying a request whose answer it lost) answers that same child; a
    /// use after the window, or after the child was used itself, means the token was copied: the whole family is
    /// revoked and audited. The lookups run outside any write; a first use is one conditional write (`rotate`), so of
    /// two uses of one token only one is the first; a later use is judged inside a transaction.
    public func refresh(refreshToken: String?, scope: String?, resource asked: String? = nil, caller: CallerInfo) async throws -> TokenSet {
        let client = try engine.requireClient(caller.clientId)
        try engine.accounts.requireGrant(.refreshToken, for: client)
        guard let refreshToken, !refreshToken.isEmpty else { throw LatchkeyError.missing(.refreshToken) }
        // Whole milliseconds: the rotation time is stored and read back to derive the child again on a retry.
        let now = Date(timeIntervalSince1970: (time.now().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        guard let (record, user) = try await findSession(token: refreshToken),
              record.kind == .native, record.revokedAt == nil, record.expiresAt > now,
              ClientApplication.sameID(record.audience, client.id), user.status == .active else {
            throw LatchkeyError.refreshTokenInvalid
        }
        // A refresh can narrow the scopes but never widen them; its resource is the grant's (RFC 8707 §2.2: one grant
        // names one resource here, so nothing narrower exists) and never another.
        if let asked, !asked.isEmpty, asked != record.resource {
            throw LatchkeyError.openID(.invalidTarget("A refresh keeps the resource its grant was for; it cannot ask for another."))
        }
        let resource = try engine.protectedResource(record.resource)
        let granted = Set(record.scope.split(separator: " ").map(String.init))
        let narrowed = scope.map { Self.parseScopes($0).filter { granted.contains($0) } } ?? []
        let effective = narrowed.isEmpty ? record.scope : (narrowed + ["offline_access"]).joined(separator: " ")
        let scopes = try grantedScopes(effective, client: client, resource: resource)

        // The common case, a first use, is one conditional write (rotate and store the child, or neither); the
        // tokens are signed after it is durable and outside any write, so signing never holds up other writers.
        if record.rotatedAt == nil {
            let child = newRefreshToken(for: user, client: client, scopes: scopes, familyId: record.familyId, parentId: record.id,
                                        resource: resource, caller: caller, token: childToken(of: refreshToken, rotatedAt: now))
            if try await engine.standaloneWrite({ try await $0.sessions.rotate(id: record.id, at: now, child: child.session) }) {
                EngineMetrics.refreshRotated.increment()
                return try signTokens(for: user, client: client, scopes: scopes, refreshToken: child.token,
                                      authTime: TimeOrderedID.date(of: record.familyId), resource: resource)
            }
        }
        let retried = try await transaction { tx -> Result<(String, [String]), LatchkeyError> in
            // Used before: read it again inside the transaction, then find the child its first use made.
            guard let current = try await tx.sessions.find(tokenHash: record.tokenHash), current.revokedAt == nil,
                  let rotated = current.rotatedAt else {
                return .failure(.refreshTokenInvalid)
            }
            // A second use counts as a retry only inside a grace window that exists (with grace 0 every second use is
            // reuse, also one whose clock read came a moment before the first use's), and only while the child it
            // answers has not been used: a parent used after its child is a copy.
            let grace = Double(self.settings.tokens.refreshReuseGraceSeconds)
            let earlier = self.childToken(of: refreshToken, rotatedAt: rotated)
            guard grace > 0, now.timeIntervalSince(rotated) <= grace, let child = try await tx.sessions.find(tokenHash: earlier.key),
                  child.revokedAt == nil, child.rotatedAt == nil else {
                try await tx.sessions.revoke(familyId: record.familyId, at: now)
                try await self.audit(tx, "refresh_token_reuse", caller: caller, userId: record.userId, detail: "family revoked")
                EngineMetrics.refreshReused.increment()
                return .failure(.refreshTokenInvalid)
            }
            return .success((earlier.token, child.scope.split(separator: " ").map(String.init)))
        }.get()
        EngineMetrics.refreshRetried.increment()
        return try signTokens(for: user, client: client, scopes: retried.1, refreshToken: retried.0,
                              authTime: TimeOrderedID.date(of: record.familyId), resource: resource)
    }

    /// The token a refresh token rotates into: the rotation's millisecond, then an HMAC of the parent under the
    /// server key. Only who holds the parent can ask for it, and a retry of the parent gets the same one back; as a
    /// session token of the usual shape it is stored under its time and HMAC like any other.
    func childToken(of parent: String, rotatedAt: Date) -> (token: String, key: Data) {
        let milliseconds = UInt64(max(0, (rotatedAt.timeIntervalSince1970 * 1000).rounded()))
        var bytes = (0..<TimeOrderedID.millisecondByteCount).map { UInt8(truncatingIfNeeded: milliseconds >> UInt64(40 - 8 * $0)) }
        bytes.append(contentsOf: keys.token.mac(Array("refresh child ".utf8) + Array(parent.utf8)))
        let token = Base64URL.encode(bytes)
        return (token, sessionKey(token))
    }

    /// The user behind a valid, unexpired access token issued by this server for `audience`.
    public func userForAccessToken(_ token: String, audience: AccessTokenAudience) async throws -> UserRecord {
        try await authenticatedAccess(token, audience: audience).user
    }

    /// The checks of `userForAccessToken`, and the token's claims.
    func authenticatedAccess(_ token: String, audience: AccessTokenAudience) async throws -> (claims: AccessTokenClaims, user: UserRecord) {
        guard let claims = await verifiedClaims(token), claims.iss == settings.issuer, Double(claims.exp) > time.now().timeIntervalSince1970,
              let scp = claims.scp  // ID tokens carry no scp: they are not access tokens
        else { throw LatchkeyError.accessTokenInvalid }
        let aud = claims.aud, sub = claims.sub
        let isAppSession = scp == AppServicesService.appSessionScope
        switch audience {
        case .nativeClients:
            guard !isAppSession, engine.client(id: aud) != nil else {
                throw LatchkeyError.accessTokenInvalid
            }
        case .nativeOrResources:
            guard !isAppSession, engine.client(id: aud) != nil || engine.resource(uri: aud) != nil else { throw LatchkeyError.accessTokenInvalid }
        case .appServices:
            guard isAppSession, settings.apps.contains(where: { $0.id == aud }) else { throw LatchkeyError.accessTokenInvalid }
            // Only while its session lives: a logout, a reset or a proven address ends the token with the session
            // (App Services access tokens open links and deletion, not just reads).
            guard let sid = claims.sid, let session = try await reader.sessions.find(id: sid), session.userId == sub,
                  session.revokedAt == nil, session.expiresAt > time.now() else { throw LatchkeyError.accessTokenInvalid }
        }
        guard let user = try await reader.users.find(id: sub), user.status == .active else {
            throw LatchkeyError.accessTokenInvalid
        }
        return (claims, user)
    }

    /// A token signed by a key this process has not loaded yet (rotated on another replica) triggers one reload.
    private func verifiedClaims(_ token: String) async -> AccessTokenClaims? {
        if let claims = JWT.verify(token, keys: engine.signingKeys, as: AccessTokenClaims.self) { return claims }
        guard keyRing.mayReload(now: time.now()), (try? await engine.reloadSigningKeys()) == true else { return nil }
        return JWT.verify(token, keys: engine.signingKeys, as: AccessTokenClaims.self)
    }
}

/// The claims an access token is checked by; anything else in it is not read.
struct AccessTokenClaims: Decodable {
    let iss: String
    let exp: Int
    let scp: String?
    let aud: String
    /// The client the token was issued to (its `aud` too, unless the token is for a resource).
    let azp: String?
    let sub: String
    /// When the sign-in these tokens come from was (native tokens; absent on families made before it was recorded).
    let auth_time: Int?
    /// App Services access tokens: the session and device they were issued for.
    let sid: String?
    let baas_device_id: String?
    /// How the sign-in was proven (RFC 8176).
    let amr: [String]?
}
