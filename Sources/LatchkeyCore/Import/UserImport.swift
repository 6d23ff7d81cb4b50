import Foundation

/// What one import run has decided so far, carried from batch to batch: the custom fields' types (read once, not
/// once per user), the session tokens seen, and in a dry run the identifiers it would have written (its batches
/// are rolled back, so the database cannot remember them).
///
/// A reference, so a batch adds to it without copying sets of a million entries. One import uses it, one batch
/// transaction after the other, never two at once: that is what makes `@unchecked Sendable` hold.
public final class ImportLedger: @unchecked Sendable {
    /// The Parse app whose schema the imported custom fields join (their types are fixed per app).
    let fieldApp: String
    var fieldTypes: [String: String] = [:]
    var ids: Set<String> = []
    var objectIds: Set<String> = []
    var emails: Set<String> = []
    var usernameKeys: Set<String> = []
    var sessionTokenHashes: Set<Data> = []
    public init(fieldApp: String) { self.fieldApp = fieldApp }

    /// A dry run's account, written in a batch that was rolled back.
    func remember(_ user: UserRecord) {
        ids.insert(user.id)
        objectIds.insert(user.objectId)
        if let email = user.email { emails.insert(email) }
        if let key = user.usernameKey { usernameKeys.insert(key) }
    }
}

/// Who holds a batch's identifiers: read in one query, then kept up to date as the batch accepts accounts, so a
/// second record with the same address in one batch is a conflict as it would be across batches.
struct BatchHolders {
    var ids: Set<String> = []
    var idByObjectId: [String: String] = [:]
    var emails: Set<String> = []
    var usernameKeys: Set<String> = []

    init(_ users: [UserRecord]) { users.forEach { add($0) } }

    mutating func add(_ user: UserRecord) {
        ids.insert(user.id)
        idByObjectId[user.objectId] = user.id
        if let email = user.email { emails.insert(email) }
        if let key = user.usernameKey { usernameKeys.insert(key) }
    }
}

/// Bringing accounts in from an export: each batch in one transaction, idempotent (an account already here under
/// the same id is skipped), never overwriting an account (a taken email or username is a conflict and changes
/// nothing), no mail. Hashes are stored as they came when `PasswordHasher.importableScheme` accepts them; the
/// first sign-in replaces them with scrypt.
extension UserImporter {
    public static let commandLineCaller = CallerInfo(dialect: .admin, clientId: "cli",
                                                userAgent: "latchkey cli (\(ProcessInfo.processInfo.userName))",
                                                actor: "cli:\(ProcessInfo.processInfo.userName)")

    private struct DryRunRollback: Error { var tally: ImportTally }

    /// One batch of users, in one transaction; with `dryRun` the same checks, then a rollback. The accounts the
    /// batch's identifiers already name are read in one query and the accepted ones written in one call, so a
    /// batch costs a few trips to the store, not several per user.
    public func importUsers(_ batch: [ImportedUser], ledger: ImportLedger, dryRun: Bool) async throws -> ImportTally {
        try await rollingBackIf(dryRun) { tx in
            var tally = ImportTally()
            let candidates = batch.compactMap { self.identified($0, tally: &tally) }
            var keys = UserKeys()
            for candidate in candidates {
                if let id = candidate.source.id { keys.ids.append(id) }
                if let objectId = candidate.source.objectId { keys.objectIds.append(objectId) }
                if let email = candidate.email { keys.emails.append(email) }
                if let username = candidate.username { keys.usernameKeys.append(UserRecord.usernameKey(username)) }
            }
            var holders = BatchHolders(try await tx.users.matching(keys))
            var accepted: [UserRecord] = [], identities: [IdentityRecord] = [], passkeys: [PasskeyRecord] = []
            var customData: [CustomDataRecord] = []
            for candidate in candidates {
                guard let user = try await self.importable(candidate, holders: holders, tally: &tally, ledger: ledger, in: tx) else { continue }
                holders.add(user)
                accepted.append(user)
                identities += candidate.source.identities.map {
                    IdentityRecord(provider: $0.provider, subject: $0.subject, userId: user.id, createdAt: user.createdAt,
                                   lastUsedAt: user.lastLoginAt ?? user.updatedAt)
                }
                passkeys += candidate.source.passkeys.map { var passkey = $0; passkey.userId = user.id; return passkey }
                customData += self.importableCustomData(candidate.source, userId: user.id, tally: &tally)
                if dryRun { ledger.remember(user) }
            }
            try await tx.users.insert(contentsOf: accepted)
            tally.imported += accepted.count
            try await self.importIdentities(identities, tally: &tally, in: tx)
            try await self.importPasskeys(passkeys, tally: &tally, in: tx)
            for record in customData {
                try await tx.customData.setCustomDocument(record.document, userId: record.userId, appId: record.appId, at: record.updatedAt)
            }
            tally.customDataCarried += customData.count
            return tally
        }
    }


    /// One batch of Parse sessions for `app`, whose users are already here (or, in a dry run, in the ledger): one
    /// lookup of the users, one of the tokens and ids already stored, one write.
    public func importParseSessions(_ batch: [ImportedSession], app: ParseApp, ledger: ImportLedger,
                                    dryRun: Bool) async throws -> ImportTally {
        try await rollingBackIf(dryRun) { tx in
            var tally = ImportTally()
            let now = self.time.now()
            let usable = batch.filter { session in
                guard !session.token.isEmpty, session.token.utf8.count <= SecretToken.maxPresentedBytes else {
                    tally.invalid += 1
                    tally.problem(session.line, "session token empty or longer than \(SecretToken.maxPresentedBytes) bytes")
                    return false
                }
                return true
            }
            let hashes = usable.map { engine.tokens.sessionKey($0.token) }
            let ids = usable.compactMap { $0.id.flatMap { Self.isImportableObjectId($0) ? $0 : nil } }
            let users = try await tx.users.matching(UserKeys(objectIds: usable.map(\.userObjectId)))
            let userIdByObjectId = Dictionary(users.map { ($0.objectId, $0.id) }, uniquingKeysWith: { first, _ in first })
            var taken = try await tx.sessions.existing(ids: ids, tokenHashes: hashes)
            var records: [SessionRecord] = []
            for (source, tokenHash) in zip(usable, hashes) {
                let createdAt = source.createdAt ?? now
                let expiresAt = source.expiresAt ?? createdAt + Double(self.settings.parseSessionTTLSeconds)
                guard expiresAt > now else {
                    tally.sessionsExpired += 1
                    continue
                }
                if ledger.sessionTokenHashes.contains(tokenHash) || taken.tokenHashes.contains(tokenHash) {
                    tally.sessionsSkipped += 1
                    continue
                }
                guard let userId = userIdByObjectId[source.userObjectId] else {
                    if ledger.objectIds.contains(source.userObjectId) {  // a dry run's user, imported in a rolled-back batch
                        ledger.sessionTokenHashes.insert(tokenHash)
                        tally.sessionsImported += 1
                    } else {
                        tally.sessionsOrphaned += 1
                        tally.problem(source.line, "session of user \(source.userObjectId.prefix(32)), who is not here")
                    }
                    continue
                }
                var id = source.id.flatMap { Self.isImportableObjectId($0) ? $0 : nil } ?? SecureRandom.alphanumeric(10)
                if taken.ids.contains(id) { id = SecureRandom.alphanumeric(10) }
                taken.ids.insert(id)
                taken.tokenHashes.insert(tokenHash)
                ledger.sessionTokenHashes.insert(tokenHash)
                records.append(SessionRecord(id: id, familyId: id, userId: userId, kind: .parse, audience: app.id, scope: source.createdWith,
                                             tokenHash: tokenHash, createdAt: createdAt, expiresAt: expiresAt,
                                             deviceId: source.installationId.flatMap { $0.isEmpty ? nil : $0 }))
            }
            try await tx.sessions.insert(contentsOf: records)
            tally.sessionsImported += records.count
            return tally
        }
    }

    /// The one audit event of a finished import: where from and the counts.
    public func auditImport(_ tally: ImportTally, source: String) async throws {
        try await transaction { tx in
            try await self.audit(tx, "users_imported", caller: Self.commandLineCaller, detail: "\(source): \(tally.summary)")
        }
    }

    /// An export hands out every password hash: it is audited like an import.
    public func auditExport(count: Int, file: String) async throws {
        try await transaction { tx in
            try await self.audit(tx, "users_exported", caller: Self.commandLineCaller, detail: "\(count) users to \(file)")
        }
    }

    private func rollingBackIf(_ dryRun: Bool, _ body: @escaping @Sendable (any Repositories) async throws -> ImportTally)
        async throws -> ImportTally {
        // The store's own errors reach the operator as they are (a concurrent sign-up taking an address fails the
        // batch; a re-run finishes it).
        do {
            return try await engine.store.transaction { tx in
                let result = try await body(tx)
                if dryRun { throw DryRunRollback(tally: result) }
                return result
            }
        } catch let rollback as DryRunRollback {
            return rollback.tally
        }
    }

    private struct Candidate { var source: ImportedUser; var email: String?; var username: String? }

    /// The record's identifiers in the engine's normal form, or nil (counted as invalid) when Latchkey cannot take them.
    private func identified(_ source: ImportedUser, tally: inout ImportTally) -> Candidate? {
        let email: String?, username: String?
        do {
            email = try source.email.flatMap { $0.isEmpty ? nil : try engine.accounts.requireEmail($0) }
            username = try source.username.flatMap { $0.isEmpty ? nil : try engine.accounts.requireUsername($0) }
        } catch {
            tally.invalid += 1
            if case .invalidEmail(let problem)? = error as? LatchkeyError {
                tally.problem(source.line, "invalid email address: \(problem)")
            } else {
                tally.problem(source.line, "invalid username")
            }
            return nil
        }
        guard email != nil || username != nil || !source.identities.isEmpty || (source.keyOnly && source.id != nil) else {
            tally.invalid += 1
            tally.problem(source.line, "neither an email, a username nor an identity")
            return nil
        }
        guard source.id.map(Self.isImportableId) ?? true, source.objectId.map(Self.isImportableObjectId) ?? true else {
            tally.invalid += 1
            tally.problem(source.line, "id or objectId is not 1–64 (objectId 1–32) letters, digits, '-', '_' (id also '|')")
            return nil
        }
        // An account reached only by an identity or a key gets the random username an identity sign-up gets.
        return Candidate(source: source, email: email, username: email == nil && username == nil ? SecureRandom.alphanumeric(25) : username)
    }

    /// The account to write, or nil when it is already here (skipped) or its identifiers belong to another (conflict).
    private func importable(_ candidate: Candidate, holders: BatchHolders, tally: inout ImportTally, ledger: ImportLedger,
                            in tx: any Repositories) async throws -> UserRecord? {
        let source = candidate.source, line = source.line
        // The same account, from an earlier run or earlier in this file: skipped.
        if let id = source.id, ledger.ids.contains(id) || holders.ids.contains(id) {
            tally.skipped += 1
            return nil
        }
        if let objectId = source.objectId {
            if ledger.objectIds.contains(objectId) {
                tally.skipped += 1
                return nil
            }
            if let holder = holders.idByObjectId[objectId] {
                guard source.id == nil || source.id == holder else {
                    tally.conflicts += 1
                    tally.problem(line, "objectId \(objectId) belongs to another account")
                    return nil
                }
                tally.skipped += 1
                return nil
            }
        }
        if let email = candidate.email, ledger.emails.contains(email) || holders.emails.contains(email) {
            tally.conflicts += 1
            tally.problem(line, "email belongs to another account")
            return nil
        }
        let usernameKey = candidate.username.map(UserRecord.usernameKey)
        if let usernameKey, ledger.usernameKeys.contains(usernameKey) || holders.usernameKeys.contains(usernameKey) {
            tally.conflicts += 1
            tally.problem(line, "username belongs to another account")
            return nil
        }

        let hash = importableHash(source, line: line, tally: &tally)
        guard let attributes = try await importableFields(source.attributes, line: line, tally: &tally, ledger: ledger, in: tx) else {
            return nil
        }

        if source.keyOnly { tally.problem(line, "signed in by API keys, which no export holds: issue new ones with latchkey api-keys") }
        let now = time.now()
        let createdAt = source.createdAt ?? now
        return UserRecord(stored: source.id ?? SecureRandom.uuidString(), objectId: source.objectId ?? SecureRandom.alphanumeric(10),
                          email: candidate.email, username: candidate.username, usernameKey: usernameKey, passwordHash: hash,
                          emailVerified: candidate.email != nil && source.emailVerified, status: source.status, attributes: attributes,
                          failedLoginCount: 0, createdAt: createdAt, updatedAt: source.updatedAt ?? createdAt,
                          lastLoginAt: source.lastLoginAt, lockedUntil: nil)
    }

    /// The custom fields a Latchkey account can hold: names as the Parse dialect allows them, declared attributes
    /// that match their schema (normalized as a write would), and per name the type the app has fixed (the first
    /// import or write fixes it). Other fields are dropped and counted. Nil (the user is not imported, and says why)
    /// when what is left is over the per-user limits, which an operator may raise for a migration.
    private func importableFields(_ fields: [String: JSONValue], line: Int, tally: inout ImportTally, ledger: ImportLedger,
                                  in tx: any Repositories) async throws -> [String: JSONValue]? {
        var kept: [String: JSONValue] = [:]
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) where value != .null {
            guard AccountRules.isCustomFieldName(name) else {
                tally.fieldsDropped += 1
                tally.problem(line, "field \(name.prefix(64)) dropped: not a name custom fields may have")
                continue
            }
            if let definition = settings.attributes.first(where: { $0.name == name }) {
                guard let normalized = AccountRules.normalize(value, as: definition) else {
                    tally.fieldsDropped += 1
                    tally.problem(line, "field \(name) dropped: it does not match the declared attribute's type or regex")
                    continue
                }
                kept[name] = normalized
                continue
            }
            let type = AccountRules.fieldType(value)
            let expected: String
            if let known = ledger.fieldTypes[name] {
                expected = known
            } else {
                expected = String(decoding: try await tx.serverValues.insertIfAbsent(name: "field_type.\(ledger.fieldApp).\(name)",
                                                                                     value: Data(type.utf8)), as: UTF8.self)
                ledger.fieldTypes[name] = expected
            }
            guard expected == type else {
                tally.fieldsDropped += 1
                tally.problem(line, "field \(name) dropped: a \(type), where the field holds \(expected) values")
                continue
            }
            kept[name] = value
        }
        do { try engine.accounts.requireWithinFieldLimits(kept) } catch {
            let limits = settings.customFieldLimits
            tally.invalid += 1
            tally.problem(line, "not imported: its fields are over \(limits.count) fields or \(limits.bytes) bytes "
                          + "(raise parse.max_custom_fields / parse.max_custom_field_bytes for the migration)")
            return nil
        }
        return kept
    }

    /// Auth0's ids name their connection before a `|` (`auth0|…`, `google-oauth2|…`), and apps keep them whole.
    static func isImportableId(_ id: String) -> Bool { isIdentifier(id, maxLength: 64, also: [UInt8(ascii: "|")]) }
    static func isImportableObjectId(_ id: String) -> Bool { isIdentifier(id, maxLength: 32) }

    private static func isIdentifier(_ text: String, maxLength: Int, also: Set<UInt8> = []) -> Bool {
        (1...maxLength).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_") || also.contains(byte)
        }
    }
}
