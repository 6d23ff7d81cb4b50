import Foundation

/// One account as an export file describes it, before the engine has checked anything. `line` is where it was
/// read, for the summary.
public struct ImportedUser: Sendable {
    public var line: Int
    /// Latchkey's own id (the neutral format); nil for other systems, which get a new one.
    public var id: String?
    /// The Parse objectId, kept so apps that cache `User.current` still find the user; nil draws a new one.
    public var objectId: String?
    public var email: String?
    public var username: String?
    public var passwordHash: String?
    public var emailVerified: Bool
    public var status: UserRecord.Status
    public var attributes: [String: JSONValue]
    public var createdAt: Date?
    public var updatedAt: Date?
    public var lastLoginAt: Date?
    /// The identities the source held (Parse `authData`: provider and id), carried over as identities.
    public var identities: [ImportedIdentity]
    /// The passkeys a Latchkey export carried; their `userId` is the imported account's once it is accepted.
    public var passkeys: [PasskeyRecord] = []
    /// A hash the source held that could not be put in a verifiable form (say why in the summary); the account comes
    /// without a password.
    public var unusableHash: ForeignPasswordHash.Refusal?
    /// An account whose only way in was something that cannot be exported (App Services `server` users' API keys):
    /// kept for its id, with no address, username or identity.
    public var keyOnly = false
    /// The source whose password did not come along (App Services, an Auth0 user missing from the password export): with
    /// `accounts.legacy_password.function` configured, its first sign-in asks that function.
    public var legacySource: String?
    /// Custom user data by App Services app id, as access tokens of that app carry it.
    public var customData: [String: [String: JSONValue]] = [:]

    public init(line: Int, id: String? = nil, objectId: String? = nil, email: String? = nil, username: String? = nil,
                passwordHash: String? = nil, emailVerified: Bool = false, status: UserRecord.Status = .active,
                attributes: [String: JSONValue] = [:], createdAt: Date? = nil, updatedAt: Date? = nil, lastLoginAt: Date? = nil,
                identities: [ImportedIdentity] = []) {
        self.line = line; self.id = id; self.objectId = objectId; self.email = email; self.username = username
        self.passwordHash = passwordHash; self.emailVerified = emailVerified; self.status = status; self.attributes = attributes
        self.createdAt = createdAt; self.updatedAt = updatedAt; self.lastLoginAt = lastLoginAt; self.identities = identities
    }
}

/// One identity of an exported account: the provider's name as the source named it and the subject it knew.
public struct ImportedIdentity: Sendable, Equatable {
    public var provider: String
    public var subject: String
    public init(provider: String, subject: String) { self.provider = provider; self.subject = subject }
}

/// One open Parse session of an exported user. The token is only ever stored as the engine's HMAC of it.
public struct ImportedSession: Sendable {
    public var line: Int
    public var id: String?
    public var token: String
    public var userObjectId: String
    public var createdAt: Date?
    public var expiresAt: Date?
    public var installationId: String?
    /// Parse's `createdWith`, as `action:authProvider` (`login:password`).
    public var createdWith: String

    public init(line: Int, id: String?, token: String, userObjectId: String, createdAt: Date?, expiresAt: Date?,
                installationId: String?, createdWith: String) {
        self.line = line; self.id = id; self.token = token; self.userObjectId = userObjectId; self.createdAt = createdAt
        self.expiresAt = expiresAt; self.installationId = installationId; self.createdWith = createdWith
    }
}

/// What an import did (or, dry, would do). Batches add up into one.
public struct ImportTally: Sendable, Equatable {
    public var imported = 0
    /// Already here under the same id: a re-run.
    public var skipped = 0
    /// The email or username belongs to another account; nothing was changed for them.
    public var conflicts = 0
    /// Records the engine refused (an invalid address, username or id), with nothing written.
    public var invalid = 0
    /// Accounts imported without a password because their hash cannot be verified here, by scheme.
    public var unsupportedHashes: [String: Int] = [:]
    /// Accounts whose password came along, by scheme (each is replaced by Latchkey's scrypt at its first sign-in).
    public var hashesByScheme: [String: Int] = [:]
    /// Identities carried over, by provider.
    public var identitiesByProvider: [String: Int] = [:]
    public var withoutPassword = 0
    /// Accounts whose first password sign-in asks the legacy-password function.
    public var legacyPasswords = 0
    /// Identities carried over, and of those, the ones whose provider this server does not serve yet (kept: they
    /// work once it is configured).
    public var identitiesCarried = 0
    public var passkeysCarried = 0
    /// Custom user data documents carried (one per account and app).
    public var customDataCarried = 0
    public var identitiesUnconfigured = 0
    /// Custom field values left out: a name Latchkey's fields cannot carry, or a type other than the field's.
    public var fieldsDropped = 0
    public var sessionsImported = 0
    public var sessionsSkipped = 0
    public var sessionsExpired = 0
    /// Sessions whose user is neither in the file's import nor already here.
    public var sessionsOrphaned = 0
    /// The first problems, one line each (`line 12: email taken by another account`), for the operator to read.
    public var problems: [String] = []
    public static let problemsKept = 50

    public init() {}

    public mutating func problem(_ line: Int, _ text: String) {
        if problems.count < Self.problemsKept { problems.append("line \(line): \(text)") }
    }

    public mutating func add(_ other: ImportTally) {
        imported += other.imported; skipped += other.skipped; conflicts += other.conflicts; invalid += other.invalid
        unsupportedHashes.merge(other.unsupportedHashes, uniquingKeysWith: +)
        hashesByScheme.merge(other.hashesByScheme, uniquingKeysWith: +)
        identitiesByProvider.merge(other.identitiesByProvider, uniquingKeysWith: +)
        withoutPassword += other.withoutPassword; legacyPasswords += other.legacyPasswords; identitiesCarried += other.identitiesCarried
        identitiesUnconfigured += other.identitiesUnconfigured; passkeysCarried += other.passkeysCarried; customDataCarried += other.customDataCarried; fieldsDropped += other.fieldsDropped
        sessionsImported += other.sessionsImported; sessionsSkipped += other.sessionsSkipped
        sessionsExpired += other.sessionsExpired; sessionsOrphaned += other.sessionsOrphaned
        for problem in other.problems where problems.count < Self.problemsKept { problems.append(problem) }
    }

    /// The audit event's detail: the counts, no identifiers.
    public var summary: String {
        var parts = ["imported \(imported)", "skipped \(skipped)", "conflicts \(conflicts)", "invalid \(invalid)",
                     "unsupported hashes \(unsupportedHashes.values.reduce(0, +))", "without password \(withoutPassword)",
                     "identities \(identitiesCarried) (\(identitiesUnconfigured) of providers not configured)", "fields dropped \(fieldsDropped)",
                     "sessions \(sessionsImported)"]
        if passkeysCarried > 0 { parts.append("passkeys \(passkeysCarried)") }
        if sessionsSkipped + sessionsExpired + sessionsOrphaned > 0 {
            parts.append("sessions skipped \(sessionsSkipped), expired \(sessionsExpired), without user \(sessionsOrphaned)")
        }
        return parts.joined(separator: ", ")
    }
}
