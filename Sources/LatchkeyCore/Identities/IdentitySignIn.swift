import Foundation

/// Signing in, linking and unlinking through identities: the rules every dialect shares.
extension Identities {
    /// The ID-token strategy of a configured issuer.
    func requireIssuer(_ provider: String) throws -> IDTokenVerifier {
        guard let verifier = engine.idTokenVerifiers[provider] else { throw LatchkeyError.providerNotEnabled(provider) }
        return verifier
    }

    /// Checks an ID token of `provider` (outside any transaction: it may fetch the issuer's keys).
    public func verifyIDToken(_ token: String?, provider: String, nonce: String? = nil) async throws -> VerifiedIdentity {
        let verifier = try requireIssuer(provider)
        guard let token, !token.isEmpty else { throw LatchkeyError.identityRefused("no ID token") }
        return try await verifier.verify(token, nonce: nonce)
    }

    /// A new anonymous identity (its subject is ours to choose, or the client's, as Parse's SDKs send one).
    public func anonymousIdentity(subject: String? = nil) throws -> VerifiedIdentity {
        let subject = subject ?? SecureRandom.uuidString().lowercased()
        guard !subject.isEmpty, subject.utf8.count <= 255 else { throw LatchkeyError.identityRefused("anonymous id must be 1 to 255 bytes") }
        return VerifiedIdentity(provider: VerifiedIdentity.anonymousProvider, subject: subject)
    }

    /// Signs in through `identity` in the caller's transaction: its account, or a new account holding only it.
    /// A new account gets the provider's verified address when no account holds it; it joins the account that does
    /// only when that account verified it too and the operator allows it (`identities.link_by_verified_email`).
    func signIn(with identity: VerifiedIdentity, caller: CallerInfo, in tx: any Repositories) async throws -> IdentityLogin {
        let now = time.now()
        if let known = try await tx.identities.identity(provider: identity.provider, subject: identity.subject) {
            guard var user = try await tx.users.find(id: known.userId), user.status == .active else { throw Self.accountUnavailable }
            try await tx.identities.touch(provider: identity.provider, subject: identity.subject, at: now)
            // Mapped claims are the issuer's to keep current: copied again on every sign-in.
            if !identity.profile.isEmpty { user.attributes[Self.profileAttribute] = Self.profileValue(identity.profile) }
            let current = try await engine.accounts.recordSignIn(user, rehash: nil, method: identity.provider, amr: AuthenticationMethods.identity(identity.provider), caller: caller, in: tx)
            return IdentityLogin(user: current, created: false)
        }
        var email = identity.verifiedEmail
        if let address = email, let holder = try await tx.users.find(email: address) {
            if settings.identities.linkByVerifiedEmail, holder.emailVerified, holder.status == .active {
                try await link(identity, to: holder, caller: caller, in: tx)
                return IdentityLogin(user: try await engine.accounts.recordSignIn(holder, rehash: nil, method: identity.provider, amr: AuthenticationMethods.identity(identity.provider), caller: caller, in: tx),
                                     created: false)
            }
            if holder.status != .pending { email = nil }
        }
        // A generated username, as Parse Server gives accounts made through authData.
        var attributes: [String: JSONValue] = [:]
        if let name = identity.name, !name.isEmpty { attributes["name"] = .string(String(name.prefix(256))) }
        if !identity.profile.isEmpty { attributes[Self.profileAttribute] = Self.profileValue(identity.profile) }
        let user = try await engine.accounts.createAccount(NewAccount(email: email, username: SecureRandom.alphanumeric(25), passwordHash: nil,
                                                      attributes: attributes, emailVerified: email != nil, status: .active),
                                           detail: "identity \(identity.provider)", caller: caller, in: tx)
        try await tx.identities.link(identity.record(userId: user.id, at: now))
        return IdentityLogin(user: try await engine.accounts.recordSignIn(user, rehash: nil, method: identity.provider, amr: AuthenticationMethods.identity(identity.provider), caller: caller, in: tx), created: true)
    }

    /// `signIn(with:)` in a transaction of its own. Two first sign-ins of one identity racing each make an account;
    /// the identity's key lets one commit, and the other is then an ordinary sign-in into it. An identity already known,
    /// of an active account, with no profile to copy, takes the path every later sign-in takes: reads, then one write
    /// joining the store's group commit, as a refresh does (`signInKnown`): the session `finish` opens, with the
    /// sign-in's record.
    func signIn<T: Sendable>(with identity: VerifiedIdentity, caller: CallerInfo,
                             then finish: @escaping @Sendable (IdentityLogin, any Repositories) async throws -> T) async throws -> T {
        if identity.profile.isEmpty, let (user, note) = try await signInKnown(identity, caller: caller) {
            let pending = PendingNote(note)
            let result = try await engine.standaloneWrite { direct in
                try await finish(IdentityLogin(user: user, created: false, pending: pending), direct)
            }
            if let unwritten = pending.take() { try await engine.standaloneWrite { try await $0.sessions.record(unwritten) } }
            EngineMetrics.signIn(caller.dialect, "success")
            return result
        }
        do {
            return try await transaction { tx in try await finish(try await self.signIn(with: identity, caller: caller, in: tx), tx) }
        } catch LatchkeyError.identityTaken {
            return try await transaction { tx in try await finish(try await self.signIn(with: identity, caller: caller, in: tx), tx) }
        }
    }

    /// A sign-in through an identity that names an existing, active account, without a transaction: the account as
    /// the sign-in leaves it and the sign-in's record, still to be written (the identity's last use, at most hourly,
    /// is written here: it is what the idle sweep reads). Nil when the identity is unknown.
    func signInKnown(_ identity: VerifiedIdentity, caller: CallerInfo) async throws -> (user: UserRecord, note: SessionNote)? {
        // Not found (or linked a moment ago by a racing first sign-in): the transaction path reads it again and decides.
        guard let (known, found) = try await reader.identities.identityWithUser(provider: identity.provider, subject: identity.subject) else {
            return nil
        }
        var user = found
        guard user.status == .active else { throw Self.accountUnavailable }
        let note = engine.accounts.signInNote(&user, method: identity.provider, amr: AuthenticationMethods.identity(identity.provider), caller: caller)
        if time.now().timeIntervalSince(known.lastUsedAt) >= 3600 {
            try await engine.standaloneWrite { try await $0.identities.touch(provider: identity.provider, subject: identity.subject, at: self.time.now()) }
        }
        return (user, note)
    }

    /// Adds `identity` to `user`. Already theirs: nothing to do. Another account's: `.identityTaken`. An anonymous
    /// identity never joins an account that has another way in. An anonymous account that gains a real way in keeps its id, its
    /// data and its anonymous identity (App Services lists both); it is no longer swept as idle.
    func link(_ identity: VerifiedIdentity, to user: UserRecord, caller: CallerInfo, in tx: any Repositories) async throws {
        if let known = try await tx.identities.identity(provider: identity.provider, subject: identity.subject) {
            guard known.userId == user.id else { throw LatchkeyError.identityTaken }
            return
        }
        if identity.isAnonymous { throw LatchkeyError.linkRefused }
        try await tx.identities.link(identity.record(userId: user.id, at: time.now()))
        try await audit(tx, "identity_linked", caller: caller, userId: user.id, email: user.email, detail: identity.provider)
    }

    /// Removes the account's identity of `provider`, unless it is the last way in (`requireAnotherWayIn`). False when the account had none of that provider.
    func unlink(provider: String, from user: UserRecord, caller: CallerInfo, in tx: any Repositories) async throws -> Bool {
        let identities = try await tx.identities.identities(userId: user.id)
        guard identities.contains(where: { $0.provider == provider }) else { return false }
        try await engine.accounts.requireAnotherWayIn(user, removing: .identity(provider), in: tx)
        _ = try await tx.identities.unlink(provider: provider, userId: user.id)
        try await audit(tx, "identity_unlinked", caller: caller, userId: user.id, email: user.email, detail: provider)
        return true
    }

    /// The identity was proven but its account is disabled: said plainly, since the token already proves who asks.
    static let accountUnavailable = LatchkeyError.identityRefused("the account is disabled")

    /// Where profile fields mapped from a custom JWT's claims are kept on the account.
    public static let profileAttribute = "profile"

    static func profileValue(_ profile: [String: String]) -> JSONValue { .object(profile.mapValues(JSONValue.string)) }

    /// The identities of several accounts, by account (an export's page).
    public func identities(ofUsers ids: [String]) async throws -> [String: [IdentityRecord]] {
        Dictionary(grouping: try await reader.identities.identities(userIds: ids), by: \.userId)
    }

    /// The account's identities, in the order they were linked.
    public func identities(of user: UserRecord) async throws -> [IdentityRecord] {
        try await reader.identities.identities(userId: user.id)
    }
}
