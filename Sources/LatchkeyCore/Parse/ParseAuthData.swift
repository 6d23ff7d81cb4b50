import Foundation

/// Parse `authData`: sign-up-or-login through `POST users`, link and unlink through `PUT users/:id`. Each provider's
/// entry names the identity by `id`; the provider's token proves it (Apple's `token`, Google's `id_token`), and its
/// `sub` must be that `id`. Anonymous entries are taken at their word, as Parse Server does.
extension ParseService {
    /// Verifies one entry (outside any transaction: an ID token may need the issuer's keys fetched).
    func parseIdentity(app: ParseApp, provider: String, fields: [String: String]) async throws -> VerifiedIdentity {
        guard app.authProviders.contains(provider) else { throw LatchkeyError.providerNotEnabled(provider) }
        guard let id = fields["id"], !id.isEmpty else { throw LatchkeyError.providerNotEnabled(provider) }
        if provider == VerifiedIdentity.anonymousProvider { return try engine.identity.anonymousIdentity(subject: id) }
        let identity = try await engine.identity.verifyIDToken(fields["id_token"] ?? fields["token"], provider: provider)
        guard identity.subject == id else { throw LatchkeyError.identityRefused("auth data is invalid for this user") }
        return identity
    }

    /// `POST users` with `authData`: the account those identities belong to (a login) or a new one holding them (a
    /// sign-up, `created`). Identities of two different accounts are `.identityTaken`. A username and password sent
    /// along (ParseSwift's instance `signup()`) are the new account's; a login ignores them, as Parse Server does.
    public func parseAuthDataLogin(app: ParseApp, authData: [String: [String: String]], username: String? = nil, password: String? = nil,
                                   secondFactor: [String: String]? = nil, installationId: String?, caller: CallerInfo) async throws -> (login: ParseLogin, created: Bool) {
        guard !authData.isEmpty else { throw LatchkeyError.providerNotEnabled("authData") }
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        var identities: [VerifiedIdentity] = []
        for provider in authData.keys.sorted() { identities.append(try await parseIdentity(app: app, provider: provider, fields: authData[provider]!)) }
        let verified = identities
        // A sign-up is limited like any other: looked up before the transaction (a limit is a write of its own).
        var owner: String?
        for identity in verified {
            if let record = try await reader.identities.identity(provider: identity.provider, subject: identity.subject) { owner = record.userId }
        }
        let known = owner != nil
        if !known { try await limit(.signUpPerIP, caller.ip, caller: caller) }
        // A login to an account with a second factor needs it too (Parse's `mfa` is an additional adapter).
        if let owner, let user = try await reader.users.find(id: owner), user.status == .active {
            _ = try await parseSecondFactorAtLogin(app: app, user: user, fields: secondFactor, caller: caller)
        }
        // Checked and hashed before the transaction, only for a sign-up that brings them.
        var chosen: (username: String?, hash: String?) = (nil, nil)
        if !known, let username, !username.isEmpty {
            let name = try engine.accounts.requireUsername(username)
            if try await reader.users.find(username: name) != nil { throw LatchkeyError.usernameTaken }
            chosen.username = name
        }
        if !known, let password, !password.isEmpty {
            chosen.hash = try await engine.passwords.hash(engine.accounts.requireAcceptablePassword(password, identifiers: [chosen.username]))
        }
        let account = chosen
        /// The session for the account `login` reached, after linking the body's other identities to it and giving
        /// a new account the username and password sent along.
        @Sendable func finish(_ login: IdentityLogin, through first: VerifiedIdentity,
                              in tx: any Repositories) async throws -> (login: ParseLogin, created: Bool) {
            var user = login.user
            if login.created, account.username != nil || account.hash != nil {
                if let name = account.username { user.setUsername(name) }
                if let hash = account.hash { user.passwordHash = hash }
                try await tx.users.update(user)
            }
            for identity in verified where identity != first { try await self.engine.identity.link(identity, to: user, caller: caller, in: tx) }
            let session = try await self.openParseSession(for: user, app: app, installationId: installationId,
                                                          action: login.created ? "signup" : "login", authProvider: first.provider, caller: caller, in: tx)
            return (session, login.created)
        }
        // One identity: the shared sign-in (a known one without a transaction, a race between first sign-ins settled).
        if verified.count == 1 {
            return try await engine.identity.signIn(with: verified[0], caller: caller) { login, tx in try await finish(login, through: verified[0], in: tx) }
        }
        // Several: they must not name two accounts; the one they name (or a new one) gets the others.
        return try await transaction { tx in
            var owners: [String: VerifiedIdentity] = [:]
            for identity in verified {
                if let known = try await tx.identities.identity(provider: identity.provider, subject: identity.subject) {
                    owners[known.userId] = identity
                }
            }
            guard owners.count <= 1 else { throw LatchkeyError.identityTaken }
            let first = owners.first?.value ?? verified[0]
            return try await finish(try await self.engine.identity.signIn(with: first, caller: caller, in: tx), through: first, in: tx)
        }
    }

    /// `PUT users/:id` with `authData`: what to link and unlink. An entry whose `id` is the one already linked is
    /// unchanged and not checked again (ParseSwift re-sends cached tokens, which may have expired); `null` for a
    /// provider the account does not have is nothing to do.
    public func parseVerifyAuthData(app: ParseApp, objectId: String, authData: [String: [String: String]?],
                                    actor: ParseActor) async throws -> [IdentityChange] {
        let target = try await actor.writableUser(objectId: objectId, in: reader.users)
        let linked = try await reader.identities.identities(userId: target.id)
        // Links (a changed id replaces the provider's identity) before removals, so an anonymous account that links
        // Apple and drops `anonymous` in one body always keeps a way in.
        var changes: [IdentityChange] = [], removals: [IdentityChange] = []
        for provider in authData.keys.sorted() {
            let current = linked.first { $0.provider == provider }
            switch authData[provider]! {
            case nil:
                if current != nil { removals.append(.unlink(provider: provider)) }
            case let fields?:
                if let current, current.subject == fields["id"] { continue }
                let identity = try await parseIdentity(app: app, provider: provider, fields: fields)
                if current != nil { changes.append(.unlink(provider: provider)) }
                changes.append(.link(identity))
            }
        }
        changes += removals
        return changes
    }

    /// The account's `authData` as Parse answers it to its owner or the master key: each provider's `id` only (tokens
    /// are never kept), as string maps (ParseSwift decodes nothing else).
    /// An account with a second factor shows `mfa: {status: enabled}`, as Parse Server shows it to clients (the
    /// secret is sealed: not even the master key reads it back).
    public func parseAuthData(of user: UserRecord) async throws -> [String: [String: String]] {
        var authData = Dictionary(uniqueKeysWithValues: try await engine.identity.identities(of: user).map { ($0.provider, ["id": $0.subject]) })
        if try await reader.secondFactors.secondFactors(userId: user.id).contains(where: { $0.kind == .totp || $0.kind == .sms }) {
            authData["mfa"] = ["status": "enabled"]
        }
        return authData
    }
}
