import Foundation

/// What one import run has decided so far, carried from batch to batch: the custom fields' types (read once, not
/// once per user), the session tokens seen, and in a dry run the identifiers it would have written (its batches
/// are rolled back, so the database cannot remember them).
public struct ImportLedger: Sendable {
    var fieldTypes: [String: String] = [:]
    var ids: Set<String> = []
    var objectIds: Set<String> = []
    var emails: Set<String> = []
    var usernameKeys: Set<String> = []
    var sessionTokenHashes: Set<Data> = []
    public init() {}
}

/// Bringing accounts in from an export: each batch in one transaction, idempotent (an account already here under
/// the same id is skipped), never overwriting an account (a taken email or username is a conflict and changes
/// nothing), no mail. Hashes are stored as they came when `PasswordHasher.importableScheme` accepts them; the
/// first sign-in replaces them with scrypt.
extension LatchkeyEngine {
    public static let importCaller = CallerInfo(dialect: .admin, clientId: "import",
                                                userAgent: "latchkey import (\(ProcessInfo.processInfo.userName))")

    private struct DryRunRollback: Error {
        var tally: ImportTally
        var ledger: ImportLedger
    }

    /// One batch of users, in one transaction; with `dryRun` the same checks, then a rollback.
    public func importUsers(_ batch: [ImportedUser], ledger: inout ImportLedger, dryRun: Bool) async throws -> ImportTally {
        let start = ledger
        let (tally, after) = try await rollingBackIf(dryRun) { tx in
            var tally = ImportTally()
            var ledger = start
            for user in batch { try await self.importUser(user, dryRun: dryRun, tally: &tally, ledger: &ledger, in: tx) }
            return (tally, ledger)
        }
        ledger = after
        return tally
    }

    /// One batch of Parse sessions for `app`, whose users are already here (or, in a dry run, in the ledger).
    public func importParseSessions(_ batch: [ImportedSession], app: ParseApp, ledger: inout ImportLedger,
                                    dryRun: Bool) async throws -> ImportTally {
        let start = ledger
        let (tally, after) = try await rollingBackIf(dryRun) { tx in
            var tally = ImportTally()
            var ledger = start
            for session in batch { try await self.importSession(session, app: app, tally: &tally, ledger: &ledger, in: tx) }
            return (tally, ledger)
        }
        ledger = after
        return tally
    }

    /// The one audit event of a finished import: where from and the counts.
    public func auditImport(_ tally: ImportTally, source: String) async throws {
        try await transaction { tx in
            try await self.audit(tx, "users_imported", caller: Self.importCaller, detail: "\(source): \(tally.summary)")
        }
    }

    private func rollingBackIf(_ dryRun: Bool, _ body: @escaping @Sendable (any Repositories) async throws -> (ImportTally, ImportLedger))
        async throws -> (ImportTally, ImportLedger) {
        // The store's own errors reach the operator as they are (a concurrent sign-up taking an address fails the
        // batch; a re-run finishes it).
        do {
            return try await store.transaction { tx in
                let result = try await body(tx)
                if dryRun { throw DryRunRollback(tally: result.0, ledger: result.1) }
                return result
            }
        } catch let rollback as DryRunRollback {
            return (rollback.tally, rollback.ledger)
        }
    }

    private func importUser(_ source: ImportedUser, dryRun: Bool, tally: inout ImportTally, ledger: inout ImportLedger,
                            in tx: any Repositories) async throws {
        let line = source.line
        let email: String?, username: String?
        do {
            email = try source.email.flatMap { $0.isEmpty ? nil : try requireEmail($0) }
            username = try source.username.flatMap { $0.isEmpty ? nil : try requireUsername($0) }
        } catch {
            tally.invalid += 1
            return tally.problem(line, error as? LatchkeyError == .invalidEmail ? "invalid email address" : "invalid username")
        }
        guard email != nil || username != nil else {
            tally.invalid += 1
            return tally.problem(line, "neither an email nor a username")
        }
        guard source.id.map(Self.isImportableId) ?? true, source.objectId.map(Self.isImportableObjectId) ?? true else {
            tally.invalid += 1
            return tally.problem(line, "id or objectId is not 1–64 (objectId 1–32) letters, digits, '-' or '_'")
        }

        // The same account, from an earlier run or earlier in this file: skipped.
        if let id = source.id, try await ledger.ids.contains(id) ? true : tx.users.find(id: id) != nil {
            tally.skipped += 1
            return
        }
        if let objectId = source.objectId {
            if ledger.objectIds.contains(objectId) {
                tally.skipped += 1
                return
            }
            if let holder = try await tx.users.find(objectId: objectId) {
                guard source.id == nil || source.id == holder.id else {
                    tally.conflicts += 1
                    return tally.problem(line, "objectId \(objectId) belongs to another account")
                }
                tally.skipped += 1
                return
            }
        }
        if let email, try await ledger.emails.contains(email) ? true : tx.users.find(email: email) != nil {
            tally.conflicts += 1
            return tally.problem(line, "email belongs to another account")
        }
        if let username,
           try await ledger.usernameKeys.contains(UserRecord.usernameKey(username)) ? true : tx.users.find(username: username) != nil {
            tally.conflicts += 1
            return tally.problem(line, "username belongs to another account")
        }

        var hash = source.passwordHash.flatMap { $0.isEmpty ? nil : $0 }
        if let stored = hash, case .failure(let refusal) = PasswordHasher.importableScheme(stored) {
            tally.unsupportedHashes[refusal.scheme, default: 0] += 1
            tally.problem(line, "password hash \(refusal.scheme): \(refusal.reason); imported without a password")
            hash = nil
        }
        if hash == nil { tally.withoutPassword += 1 }
        if source.hadAuthData { tally.authDataIgnored += 1 }
        let attributes = try await importableFields(source.attributes, line: line, tally: &tally, ledger: &ledger, in: tx)

        let now = time.now()
        let createdAt = source.createdAt ?? now
        let user = UserRecord(stored: source.id ?? UUID().uuidString.lowercased(), objectId: source.objectId ?? SecureRandom.alphanumeric(10),
                              email: email, username: username, usernameKey: username.map(UserRecord.usernameKey), passwordHash: hash,
                              emailVerified: email != nil && source.emailVerified, status: source.status, attributes: attributes,
                              failedLoginCount: 0, createdAt: createdAt, updatedAt: source.updatedAt ?? createdAt,
                              lastLoginAt: source.lastLoginAt, lockedUntil: nil)
        try await tx.users.insert(user)
        tally.imported += 1
        if dryRun {
            ledger.ids.insert(user.id)
            ledger.objectIds.insert(user.objectId)
            if let email { ledger.emails.insert(email) }
            if let key = user.usernameKey { ledger.usernameKeys.insert(key) }
        }
    }

    /// The custom fields a Latchkey account can hold: names as the Parse dialect allows them and, per name, the
    /// type the deployment has fixed (the first import or write fixes it). Others are dropped and counted.
    private func importableFields(_ fields: [String: JSONValue], line: Int, tally: inout ImportTally, ledger: inout ImportLedger,
                                  in tx: any Repositories) async throws -> [String: JSONValue] {
        var kept: [String: JSONValue] = [:]
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) where value != .null {
            guard Self.isCustomFieldName(name) else {
                tally.fieldsDropped += 1
                tally.problem(line, "field \(name.prefix(64)) dropped: not a name custom fields may have")
                continue
            }
            let type = Self.fieldType(value)
            let expected: String
            if let known = ledger.fieldTypes[name] {
                expected = known
            } else {
                expected = String(decoding: try await tx.serverValues.insertIfAbsent(name: "field_type.\(name)", value: Data(type.utf8)),
                                  as: UTF8.self)
                ledger.fieldTypes[name] = expected
            }
            guard expected == type else {
                tally.fieldsDropped += 1
                tally.problem(line, "field \(name) dropped: a \(type), where the field holds \(expected) values")
                continue
            }
            kept[name] = value
        }
        return kept
    }

    private func importSession(_ source: ImportedSession, app: ParseApp, tally: inout ImportTally, ledger: inout ImportLedger,
                               in tx: any Repositories) async throws {
        let now = time.now()
        guard !source.token.isEmpty, source.token.utf8.count <= 512 else {
            tally.invalid += 1
            return tally.problem(source.line, "session token empty or longer than 512 bytes")
        }
        let createdAt = source.createdAt ?? now
        let expiresAt = source.expiresAt ?? createdAt + Double(settings.parseSessionTTLSeconds)
        guard expiresAt > now else {
            tally.sessionsExpired += 1
            return
        }
        let tokenHash = secretHash(source.token)
        if try await ledger.sessionTokenHashes.contains(tokenHash) ? true : tx.sessions.find(tokenHash: tokenHash) != nil {
            tally.sessionsSkipped += 1
            return
        }
        guard let user = try await tx.users.find(objectId: source.userObjectId) else {
            if ledger.objectIds.contains(source.userObjectId) {  // a dry run's user, imported in a rolled-back batch
                ledger.sessionTokenHashes.insert(tokenHash)
                tally.sessionsImported += 1
            } else {
                tally.sessionsOrphaned += 1
                tally.problem(source.line, "session of user \(source.userObjectId.prefix(32)), who is not here")
            }
            return
        }
        var id = source.id.flatMap { Self.isImportableObjectId($0) ? $0 : nil } ?? SecureRandom.alphanumeric(10)
        if try await tx.sessions.find(id: id) != nil { id = SecureRandom.alphanumeric(10) }
        try await tx.sessions.insert(SessionRecord(id: id, familyId: id, userId: user.id, kind: .parse, audience: app.id,
                                                   scope: source.createdWith, tokenHash: tokenHash, createdAt: createdAt,
                                                   expiresAt: expiresAt, deviceId: source.installationId.flatMap { $0.isEmpty ? nil : $0 }))
        ledger.sessionTokenHashes.insert(tokenHash)
        tally.sessionsImported += 1
    }

    static func isImportableId(_ id: String) -> Bool { isIdentifier(id, maxLength: 64) }
    static func isImportableObjectId(_ id: String) -> Bool { isIdentifier(id, maxLength: 32) }

    private static func isIdentifier(_ text: String, maxLength: Int) -> Bool {
        (1...maxLength).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_")
        }
    }
}
