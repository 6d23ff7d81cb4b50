import Foundation

/// Who is asking in the Parse dialect: the app's master key, a user through a live session, or nobody.
public enum ParseActor: Sendable {
    case master
    case user(UserRecord, session: SessionRecord)
    case anonymous

    /// Users are private (Parse 7's `enforcePrivateUsers`): only their owner and the master key reach them.
    func mayAccess(_ user: UserRecord) -> Bool {
        switch self {
        case .master: true
        case .user(let caller, _): caller.id == user.id
        case .anonymous: false
        }
    }

    var isMaster: Bool { if case .master = self { true } else { false } }

    /// Only the master key writes `emailVerified`.
    func requireMayWrite(emailVerified: Bool?) throws {
        if emailVerified != nil, !isMaster { throw LatchkeyError.fieldNotWritable("emailVerified") }
    }

    /// The account a write names, if this actor may write it: a missing account is `.objectNotFound` for the master
    /// key and, like another user's account, `.notPermitted` for everyone else.
    func writableUser(objectId: String, in users: any UserRepository) async throws -> UserRecord {
        guard let user = try await users.find(objectId: objectId) else {
            throw isMaster ? LatchkeyError.objectNotFound : LatchkeyError.notPermitted
        }
        guard mayAccess(user) else { throw LatchkeyError.notPermitted }
        return user
    }
}

/// One custom field's change, as the engine understands it (the Parse router reads Parse's `__op` objects into it).
public enum FieldChange: Sendable, Equatable {
    /// Replace with this value.
    case set(JSONValue)
    case remove
    /// Add this number (start at it when the field is absent).
    case increment(JSONValue)
    /// An operation the engine does not perform (`AddUnique`, `Batch`, ...): a type error for that field.
    case unsupported(String)
}

/// What `PUT users/:id` asks to change; nil leaves a value as it is. `email: .some(nil)` removes the address (only
/// from an account that keeps a username).
public struct ParseUserChanges: Sendable {
    public var username: String?
    public var email: String??
    public var password: String?
    public var emailVerified: Bool?
    public var fields: [String: FieldChange]
    /// `authData` entries, verified by `parseVerifyAuthData`; applied after the password, so an anonymous account
    /// that sets one may drop its anonymous identity in the same write.
    public var identities: [IdentityChange]
    /// `authData.mfa`'s change, checked by `parsePrepareSecondFactor`.
    public var secondFactor: ParseSecondFactorWrite?

    public init(username: String? = nil, email: String?? = nil, password: String? = nil, emailVerified: Bool? = nil,
                fields: [String: FieldChange] = [:], identities: [IdentityChange] = []) {
        self.username = username; self.email = email; self.password = password; self.emailVerified = emailVerified
        self.fields = fields; self.identities = identities
    }
}

/// The Parse dialect's account routes beyond sign-up and login: read, change, delete and list users.
extension ParseService {
    /// `GET users/:id`: the user, or `.objectNotFound` when it does not exist or the caller may not see it.
    public func parseUser(objectId: String, actor: ParseActor) async throws -> UserRecord {
        guard let user = try await reader.users.find(objectId: objectId), actor.mayAccess(user) else { throw LatchkeyError.objectNotFound }
        return user
    }

    /// `PUT users/:id` by the owner or the master key. A new email is unverified again (and mailed a link when the app
    /// verifies emails); a new password ends every session of the user and, for the owner, opens a new one on the
    /// caller's installation, whose token is returned.
    public func parseUpdateUser(app: ParseApp, objectId: String, changes: ParseUserChanges, actor: ParseActor, installationId: String?,
                                caller: CallerInfo) async throws -> (user: UserRecord, sessionToken: String?, recoveryCodes: [String]?) {
        try actor.requireMayWrite(emailVerified: changes.emailVerified)
        // The operator's master key is not limited; a session is (a stolen one must not rewrite accounts at will).
        if !actor.isMaster { try await limit(.updatePerIP, caller.ip, caller: caller) }
        let target = try await actor.writableUser(objectId: objectId, in: reader.users)
        let username = try changes.username.map { try engine.accounts.requireUsername($0) }
        let email = try changes.email.map { try $0.map { try engine.accounts.requireEmail($0) } }
        let hash = try await changes.password.asyncMap { password in
            try await engine.passwords.hash(engine.accounts.requireAcceptablePassword(password, identifiers: [username ?? target.username, (email ?? target.email) ?? nil]))
        }
        return try await transaction { tx -> (user: UserRecord, sessionToken: String?, recoveryCodes: [String]?) in
            // The second factor's change, checked before, is written with everything else or not at all (first, so the
            // user read next carries what it wrote: an enrolment clears the failed attempts).
            let recoveryCodes = try await changes.secondFactor.asyncMap { try await self.apply($0, to: target, caller: caller, in: tx) } ?? nil
            guard var user = try await tx.users.find(id: target.id) else { throw LatchkeyError.objectNotFound }
            let applied = try Self.applying(changes.fields, to: user.attributes)
            // Names are checked for every written field, types and schemas for the values they end up with.
            user.attributes = try await self.engine.accounts.checkCustomFields(
                Dictionary(uniqueKeysWithValues: changes.fields.keys.map { ($0, applied[$0] ?? .null) }), into: user.attributes,
                app: app.id, in: tx)
            let previousEmail = user.email
            if let username {
                try await self.engine.accounts.requireNoIdentifierClash(username: username, email: nil, excluding: user.id, in: tx)
                user.setUsername(username)
            }
            if let email {
                guard email != nil || user.username != nil else { throw LatchkeyError.missing(.email) }
                try await self.engine.accounts.changeEmail(of: &user, to: email, caller: caller, in: tx)
                user.emailVerified = false  // as Parse Server: an email written, even the same one, is unverified again
            }
            if changes.emailVerified == false { user.emailVerified = false }
            if changes.emailVerified == true {   // the master key vouches, as an operator does: the one proof, ending nothing
                try await self.engine.accounts.proveAddress(&user, through: .assured("parse \(app.id), master key"), caller: caller, in: tx)
            }
            user.updatedAt = self.time.now()
            try await tx.users.update(user)
            try await self.audit(tx, "account_updated", caller: caller, userId: user.id, email: user.email, detail: "parse \(app.id)")
            if email != nil, app.verifyUserEmails, !user.emailVerified {
                try await self.mailParseLink(.confirmation, to: user, app: app, caller: caller, in: tx)
            }
            if let hash {
                try await self.engine.accounts.applyNewPassword(hash, to: &user, previousEmail: previousEmail, recovery: false, caller: caller, in: tx)
            }
            for change in changes.identities {
                switch change {
                case .link(let identity): try await self.engine.identity.link(identity, to: user, caller: caller, in: tx)
                case .unlink(let provider): _ = try await self.engine.identity.unlink(provider: provider, from: user, caller: caller, in: tx)
                }
            }
            guard hash != nil, !actor.isMaster else { return (user, nil, recoveryCodes) }
            let login = try await self.openParseSession(for: user, app: app, installationId: installationId, action: "login", caller: caller, in: tx)
            return (login.user, login.sessionToken, recoveryCodes)
        }
    }

    /// `DELETE users/:id` by the owner or the master key; the user's sessions, tokens and flows go with it.
    public func parseDeleteUser(objectId: String, actor: ParseActor, caller: CallerInfo) async throws {
        try await transaction { tx in
            let user = try await actor.writableUser(objectId: objectId, in: tx.users)
            try await tx.users.delete(id: user.id)
            try await self.audit(tx, "account_deleted", caller: caller, userId: user.id, email: user.email, detail: "parse")
        }
    }

    /// `GET users` (master key only): the page of users a query matches and, when asked, how many match in all.
    public func parseListUsers(_ query: UserQuery, count: Bool) async throws -> (users: [UserRecord], total: Int?) {
        var query = query
        if let email = query.email {
            // An address that cannot be normalized matches nobody.
            guard let normalized = EmailAddress.normalize(email) else { return ([], count ? 0 : nil) }
            query.email = normalized
        }
        let users = query.limit > 0 ? try await reader.users.list(query) : []
        return (users, count ? try await reader.users.count(query) : nil)
    }

    /// Stored fields with the changes applied: a value replaces, a removal removes, an increment adds to a number (or
    /// starts one); an unsupported operation, or an increment of something not a number, is a type error.
    static func applying(_ changes: [String: FieldChange], to stored: [String: JSONValue]) throws -> [String: JSONValue] {
        var fields = stored
        for (name, change) in changes {
            switch (change, fields[name]) {
            case (.set(let value), _): fields[name] = value == .null ? nil : value
            case (.remove, _): fields[name] = nil
            case (.increment(.int(let amount)), .int(let current)?): fields[name] = .int(current &+ amount)
            case (.increment(.int(let amount)), nil): fields[name] = .int(amount)
            case (.increment(let amount), let current):
                let base = current == nil ? 0 : current?.doubleValue
                guard let add = amount.doubleValue, let base else {
                    throw LatchkeyError.fieldTypeMismatch(field: name, expected: "Number", got: AccountRules.fieldType(current ?? amount))
                }
                fields[name] = .double(base + add)
            case (.unsupported(let op), let current):
                throw LatchkeyError.fieldTypeMismatch(field: name, expected: AccountRules.fieldType(current ?? .null), got: op)
            }
        }
        return fields
    }
}
