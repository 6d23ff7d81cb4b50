import Foundation

/// RFC 7662 introspection and RFC 7009 revocation, for a client's own tokens. Access tokens are signed and
/// self-contained: one stays valid until it expires (minutes); revoking a refresh token ends its whole family.
extension PagesService {
    /// What a client may know about one of its tokens; `{"active": false}` for anything else.
    public func introspect(token: String?, client: ClientApplication) async throws -> [String: JSONValue] {
        let inactive: [String: JSONValue] = ["active": .bool(false)]
        guard let token, !token.isEmpty, token.utf8.count <= 8192 else { return inactive }
        if token.contains("."), let (claims, user) = try? await engine.tokens.authenticatedAccess(token, audience: .nativeOrResources) {
            // The client it was issued to: `azp`, also when its `aud` is a resource (RFC 8707).
            let issuedTo = claims.azp ?? claims.aud
            guard ClientApplication.sameID(issuedTo, client.id) else { return inactive }
            return ["active": .bool(true), "token_type": .string("access_token"), "scope": .string(claims.scp ?? ""),
                    "client_id": .string(issuedTo), "sub": .string(user.id), "username": .string(user.displayName),
                    "exp": .int(claims.exp), "iss": .string(settings.issuer), "aud": .string(claims.aud)]
        }
        guard let (session, user) = try await engine.tokens.findSession(token: token), session.kind == .native, session.revokedAt == nil,
              session.rotatedAt == nil, session.expiresAt > time.now(), user.status == .active,
              ClientApplication.sameID(session.audience, client.id) else { return inactive }
        return ["active": .bool(true), "token_type": .string("refresh_token"), "scope": .string(session.scope),
                "client_id": .string(session.audience), "sub": .string(user.id), "username": .string(user.displayName),
                "exp": .int(Int(session.expiresAt.timeIntervalSince1970)), "iat": .int(Int(session.createdAt.timeIntervalSince1970)),
                "iss": .string(settings.issuer), "aud": .string(session.resource ?? session.audience)]
    }

    /// Revokes a refresh token's family when it belongs to the client; anything else is answered the same way
    /// (RFC 7009 §2.2: an unknown token is no error).
    public func revoke(token: String?, client: ClientApplication, caller: CallerInfo) async throws {
        guard let token, !token.isEmpty, !token.contains("."),
              let (session, _) = try await engine.tokens.findSession(token: token), session.kind == .native, session.revokedAt == nil,
              ClientApplication.sameID(session.audience, client.id) else { return }
        try await transaction { tx in
            try await tx.sessions.revoke(familyId: session.familyId, at: self.time.now())
            try await self.audit(tx, "token_revoked", caller: caller, userId: session.userId, detail: "refresh token family of \(client.id)")
        }
    }
}

extension PagesService {
    /// The userinfo claims an access token's scopes open (OpenID Connect Core §5.4): `sub` always, the name claims
    /// with `profile`, the address with `email`, for a third-party client (it gets what the user consented to). The
    /// operator's own (first-party) apps get every claim, as the native API always gave them.
    public func userInfo(accessToken: String) async throws -> [String: JSONValue] {
        let (claims, user) = try await engine.tokens.authenticatedAccess(accessToken, audience: .nativeClients)
        let scopes = Tokens.claimScopes((claims.scp ?? "").split(separator: " ").map(String.init), client: try? engine.requireClient(claims.aud))
        var body = Tokens.profileClaims(of: user, scopes: scopes)
        body["sub"] = .string(user.id)
        return body
    }
}
