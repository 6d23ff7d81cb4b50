import Foundation

/// The token endpoint's side of the browser sign-in: client authentication, and the `authorization_code` grant.
extension Tokens {
    /// The client a token-endpoint request speaks for. A confidential client proves itself with its secret
    /// (`client_secret_basic` or `client_secret_post`); a public client sends none.
    public func authenticateClient(id: String?, secret: String?) throws -> ClientApplication {
        guard let id, !id.isEmpty else { throw LatchkeyError.openID(.invalidClient("client_id is missing.")) }
        guard let client = engine.client(id: id) else {
            throw LatchkeyError.openID(.invalidClient("The client is not registered."))
        }
        switch (client.secretDigest, secret) {
        case (nil, nil): return client
        case (nil, _?): throw LatchkeyError.openID(.invalidClient("This client is public: it has no secret to send."))
        case (_?, nil): throw LatchkeyError.openID(.invalidClient("This client must authenticate with its secret."))
        case (let digest?, let secret?):
            guard Digest.constantTimeEqual(Digest.sha256(Array(secret.utf8)), digest) else {
                throw LatchkeyError.openID(.invalidClient("The client secret is wrong."))
            }
            return client
        }
    }

    /// Redeems a code once: bound to its client, its redirect URI and its PKCE challenge. A code presented again
    /// revokes the refresh tokens its first use gave (RFC 6749 §4.1.2). The code, its account and its browser sign-in
    /// are one read; the redeem, the refresh token's row and the audit event one conditional write joining the group
    /// commit (of two exchanges racing, one writes); the tokens are signed after it, outside.
    public func exchangeAuthorizationCode(code: String?, redirectUri: String?, codeVerifier: String?, resource: String? = nil,
                                          client: ClientApplication, caller: CallerInfo) async throws -> TokenSet {
        try engine.accounts.requireGrant(.authorizationCode, for: client)
        guard let code, !code.isEmpty else { throw LatchkeyError.openID(.invalidRequest("code is missing.")) }
        guard let redirectUri, !redirectUri.isEmpty else { throw LatchkeyError.openID(.invalidRequest("redirect_uri is missing.")) }
        return try await redeemCode(code: code, redirectUri: redirectUri, codeVerifier: codeVerifier, resource: resource, client: client,
                                    caller: caller)
    }

    /// The redemption itself, shared with the device grant, whose approval is a code stored under its device code.
    /// `resource`, when the token request names one, must be the one the code was asked for (RFC 8707 §2.2).
    func redeemCode(code: String, redirectUri: String, codeVerifier: String?, resource asked: String?, client: ClientApplication,
                    caller: CallerInfo) async throws -> TokenSet {
        guard code.utf8.count <= SecretToken.maxPresentedBytes else { throw LatchkeyError.openID(.invalidGrant("The code is not valid.")) }
        let now = time.now()
        let hash = engine.secretHash(code)
        guard let (record, user, signInLive) = try await reader.openID.authorizationCodeWithUser(codeHash: hash, now: now),
              record.usedAt == nil, record.expiresAt > now else {
            throw try await refusal(spent: hash, client: client, caller: caller, now: now)
        }
        let authentication: Authentication, scopes: [String], resource: ProtectedResource?
        do {
            try Self.check(record, client: client, redirectUri: redirectUri, codeVerifier: codeVerifier)
            if let asked, !asked.isEmpty, asked != record.resource {
                throw LatchkeyError.openID(.invalidTarget("The resource differs from the one the code was asked for."))
            }
            resource = try engine.protectedResource(record.resource)
            guard user.status == .active else { throw LatchkeyError.openID(.invalidGrant("The account is no longer active.")) }
            // Signed out between the code and its exchange: single logout covers the code too.
            guard signInLive else { throw LatchkeyError.openID(.invalidGrant("The sign-in this code came from has ended.")) }
            authentication = Authentication(nonce: record.nonce, authTime: record.authTime, amr: record.amr.split(separator: " ").map(String.init))
            scopes = try grantedScopes(record.scope, client: client, resource: resource)
        } catch {
            // A code that fails its checks is spent all the same, as one presented once.
            _ = try await engine.standaloneWrite { try await $0.openID.redeemAuthorizationCode(codeHash: hash, at: now, opening: nil, noting: nil) }
            throw error
        }
        let refresh = scopes.contains("offline_access")
            ? newRefreshToken(for: user, client: client, scopes: scopes, familyId: record.familyId, parentId: nil, resource: resource,
                              caller: caller) : nil
        let note = SessionNote(event: engine.auditEvent("token_issued", caller: caller, userId: user.id, detail: "authorization_code for \(client.id)"),
                               signIn: false)
        guard try await engine.standaloneWrite({
            try await $0.openID.redeemAuthorizationCode(codeHash: hash, at: now, opening: refresh?.session, noting: note)
        }) else {
            throw try await refusal(spent: hash, client: client, caller: caller, now: now)
        }
        return try signTokens(for: user, client: client, scopes: scopes, refreshToken: refresh?.token, authentication: authentication,
                              resource: resource)
    }

    /// A code bound to `client`, `redirectUri` and, with PKCE, to `codeVerifier`.
    private static func check(_ record: AuthorizationCodeRecord, client: ClientApplication, redirectUri: String, codeVerifier: String?) throws {
        guard ClientApplication.sameID(record.clientId, client.id) else {
            throw LatchkeyError.openID(.invalidGrant("The code was issued to another client."))
        }
        guard record.redirectUri == redirectUri else {
            throw LatchkeyError.openID(.invalidGrant("redirect_uri differs from the one the code was requested with."))
        }
        switch (record.codeChallenge, codeVerifier) {
        case (nil, nil): break
        case (nil, _?): throw LatchkeyError.openID(.invalidGrant("code_verifier was sent but no code_challenge was."))
        case (_?, nil): throw LatchkeyError.openID(.invalidGrant("code_verifier is missing."))
        case (let challenge?, let verifier?):
            guard PKCE.verifies(verifier, challenge: challenge) else { throw LatchkeyError.openID(.invalidGrant("code_verifier does not match.")) }
        }
    }

    /// Why a code could not be redeemed (unknown, expired or used); one used before by this client revokes what its
    /// first use gave.
    private func refusal(spent hash: Data, client: ClientApplication, caller: CallerInfo, now: Date) async throws -> LatchkeyError {
        guard let used = try await reader.openID.authorizationCode(codeHash: hash), used.usedAt != nil,
              ClientApplication.sameID(used.clientId, client.id) else {
            return LatchkeyError.openID(.invalidGrant("The code is unknown or expired."))
        }
        try await transaction { tx in
            // Audited as what it was: a first redemption that failed its checks gave no tokens to revoke.
            let live = try await tx.sessions.live(userId: used.userId, kind: .native, audience: used.clientId, now: now)
                .contains { $0.familyId == used.familyId }
            try await tx.sessions.revoke(familyId: used.familyId, at: now)
            try await self.audit(tx, "authorization_code_reuse", caller: caller, userId: used.userId,
                                 detail: live ? "tokens revoked" : "no tokens had been issued")
        }
        return LatchkeyError.openID(.invalidGrant("The code was used before; the tokens it gave are revoked."))
    }
}
