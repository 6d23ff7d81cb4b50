import Foundation

/// Accounts. Email and username are each unique (the username without regard to case).
public protocol UserRepository: Sendable {
    func find(id: String) async throws -> UserRecord?
    func find(email: String) async throws -> UserRecord?
    func find(username: String) async throws -> UserRecord?
    func find(objectId: String) async throws -> UserRecord?
    /// The users a query matches, oldest first, `skip` left out and at most `limit` returned.
    func list(_ query: UserQuery) async throws -> [UserRecord]
    func count(_ query: UserQuery) async throws -> Int
    /// Throws `StoreConflict.emailTaken` / `.usernameTaken` when another account holds either (also under a race).
    func insert(_ user: UserRecord) async throws
    /// Every account holding one of these ids, objectIds, emails or username keys: an import's lookup of a batch.
    func matching(_ keys: UserKeys) async throws -> [UserRecord]
    /// Inserts all of them, in order, in one trip to the store; the same conflicts as `insert`.
    func insert(contentsOf users: [UserRecord]) async throws
    /// Same conflicts as `insert`.
    func update(_ user: UserRecord) async throws
    func delete(id: String) async throws
    /// Counts one password attempt, unless the account is locked at `now`: one conditional write, so guesses sent in
    /// parallel each take their own slot. Nil when the account does not exist.
    func takePasswordAttempt(userId: String, now: Date) async throws -> PasswordAttempt?
    func lock(userId: String, until: Date) async throws
    /// Forgets counted attempts and any lock.
    func clearPasswordAttempts(userId: String) async throws
    /// The roles an operator gave the user, in the order given.
    func roles(userId: String) async throws -> [UserRole]
    /// False when the user holds the role already.
    func grant(_ role: UserRole) async throws -> Bool
    /// False when the user did not hold it.
    func revoke(role: String, userId: String) async throws -> Bool
}

/// Identifiers to look up together (emails normalized, usernames case-folded).
public struct UserKeys: Sendable, Equatable {
    public var ids: [String] = []
    public var objectIds: [String] = []
    public var emails: [String] = []
    public var usernameKeys: [String] = []
    public init(ids: [String] = [], objectIds: [String] = [], emails: [String] = [], usernameKeys: [String] = []) {
        self.ids = ids; self.objectIds = objectIds; self.emails = emails; self.usernameKeys = usernameKeys
    }
}

public enum PasswordAttempt: Sendable, Equatable {
    /// The attempt is counted; this many have failed in a row, this one included.
    case counted(failures: Int)
    case locked(until: Date)
}

/// A lookup by the identifiers an administrator filters on: both optional, both exact after normalizing (the
/// username without regard to case, the email as normalized).
public struct UserQuery: Sendable, Equatable {
    public var username: String?
    public var email: String?
    /// Matches users whose email, case-folded username or id starts with this text case-folded, or whose objectId
    /// starts with it as given (objectIds are case-sensitive): the admin search.
    public var prefix: String?
    /// Keyset pagination: only users after this one in (created_at, id) order.
    public var after: UserCursor?
    public var limit: Int
    public var skip: Int
    public init(username: String? = nil, email: String? = nil, prefix: String? = nil, after: UserCursor? = nil, limit: Int = 100,
                skip: Int = 0) {
        self.username = username; self.email = email; self.prefix = prefix; self.after = after; self.limit = limit; self.skip = skip
    }

    /// `prefix` case-folded as a LIKE pattern with `\` as escape character: the caller's `%` and `_` match themselves.
    public var prefixPattern: String? { prefix.map { Self.likePattern(UserRecord.usernameKey($0)) } }

    /// `prefix` as given, as a LIKE pattern (for objectIds).
    public var exactPrefixPattern: String? { prefix.map(Self.likePattern) }

    /// The texts starting with `text` are those in [text, text + U+10FFFF) by code point order: an index range.
    public static func prefixRange(_ text: String) -> (from: String, to: String) { (text, text + "\u{10FFFF}") }

    private static func likePattern(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }
}

/// Where a page of users ended: the last user's creation time and id.
public struct UserCursor: Sendable, Equatable {
    public var createdAt: Date
    public var id: String
    public init(createdAt: Date, id: String) { self.createdAt = createdAt; self.id = id }
}

/// A role an operator gave an account (`latchkey users grant`): `operator` may sign in to the console.
public struct UserRole: Codable, Sendable, Equatable {
    public static let operatorRole = "operator"
    /// The roles there are: anything else is refused when granted.
    public static let known = [operatorRole]

    public var userId: String
    public var role: String
    public var grantedAt: Date
    public init(userId: String, role: String, grantedAt: Date) { self.userId = userId; self.role = role; self.grantedAt = grantedAt }
}
