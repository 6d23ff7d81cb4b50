import Foundation

/// A user account. At most one per normalized email address and one per username (case-insensitive), across
/// all dialects; an account has an email, a username, or both.
public struct UserRecord: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable { case active, pending, disabled }
    public var id: String
    /// The user's name in the Parse dialect: 10 characters from [A-Za-z0-9], unique, fixed at creation.
    public var objectId: String
    public var email: String?
    /// The username as the user chose it; `usernameKey` is its case-folded form, which is what is unique.
    public private(set) var username: String?
    public private(set) var usernameKey: String?
    public var passwordHash: String?
    public var emailVerified: Bool
    public var status: Status
    public var attributes: [String: JSONValue]
    public var failedLoginCount: Int
    public var createdAt: Date
    public var updatedAt: Date
    public var lastLoginAt: Date?
    public var lockedUntil: Date?

    public init(id: String, email: String?, username: String? = nil, passwordHash: String?, emailVerified: Bool, status: Status,
                attributes: [String: JSONValue], now: Date) {
        self.id = id; self.objectId = SecureRandom.alphanumeric(10); self.email = email; self.passwordHash = passwordHash
        self.emailVerified = emailVerified; self.status = status; self.attributes = attributes
        self.failedLoginCount = 0; self.createdAt = now; self.updatedAt = now; self.lastLoginAt = nil
        self.lockedUntil = nil
        setUsername(username)
    }

    /// A stored row as it is: nothing is derived again (no new objectId, no second case-folding of the username).
    public init(stored id: String, objectId: String, email: String?, username: String?, usernameKey: String?, passwordHash: String?,
                emailVerified: Bool, status: Status, attributes: [String: JSONValue], failedLoginCount: Int, createdAt: Date,
                updatedAt: Date, lastLoginAt: Date?, lockedUntil: Date?) {
        self.id = id; self.objectId = objectId; self.email = email; self.username = username; self.usernameKey = usernameKey
        self.passwordHash = passwordHash; self.emailVerified = emailVerified; self.status = status; self.attributes = attributes
        self.failedLoginCount = failedLoginCount; self.createdAt = createdAt; self.updatedAt = updatedAt
        self.lastLoginAt = lastLoginAt; self.lockedUntil = lockedUntil
    }

    public mutating func setUsername(_ name: String?) {
        username = name
        usernameKey = name.map(Self.usernameKey)
    }

    /// Usernames compare without regard to case or Unicode compatibility forms.
    public static func usernameKey(_ name: String) -> String {
        name.precomposedStringWithCompatibilityMapping.lowercased()
    }

    /// How the user is named to people and in tokens: the email when there is one.
    public var displayName: String { email ?? username ?? id }
}

/// The server-side state behind a continuation token. The token itself is only stored as an HMAC.
public struct FlowRecord: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case signUp = "sign_up", signIn = "sign_in", passwordReset = "password_reset" }
    public var id: String
    public var tokenHash: Data
    public var kind: Kind
    public var email: String
    public var userId: String?
    public var state: FlowState
    public var expiresAt: Date
    public var createdAt: Date

    public init(id: String, tokenHash: Data, kind: Kind, email: String, userId: String?, state: FlowState, expiresAt: Date,
                createdAt: Date) {
        self.id = id; self.tokenHash = tokenHash; self.kind = kind; self.email = email; self.userId = userId
        self.state = state.of(kind); self.expiresAt = expiresAt; self.createdAt = createdAt
    }

    private enum CodingKeys: String, CodingKey { case id, tokenHash, kind, email, userId, state, expiresAt, createdAt }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id), tokenHash: try c.decode(Data.self, forKey: .tokenHash),
                  kind: try c.decode(Kind.self, forKey: .kind), email: try c.decode(String.self, forKey: .email),
                  userId: try c.decodeIfPresent(String.self, forKey: .userId), state: try c.decode(FlowState.self, forKey: .state),
                  expiresAt: try c.decode(Date.self, forKey: .expiresAt), createdAt: try c.decode(Date.self, forKey: .createdAt))
    }
}

/// A mailed one-time code, keyed by its flow. Hashed, expiring, with capped attempts, single use.
public struct OTPRecord: Codable, Sendable, Equatable {
    public var flowId: String
    public var codeHash: Data
    public var attemptsLeft: Int
    public var expiresAt: Date
    public var createdAt: Date

    public init(flowId: String, codeHash: Data, attemptsLeft: Int, expiresAt: Date, createdAt: Date) {
        self.flowId = flowId; self.codeHash = codeHash; self.attemptsLeft = attemptsLeft; self.expiresAt = expiresAt
        self.createdAt = createdAt
    }
}

/// A session of any dialect: a native refresh-token family, an App Services session, a Parse session. The token
/// handed out is stored only as an HMAC. Native refresh tokens rotate on every use and all rotations of one sign-in
/// share a family; the other kinds keep one token for the session's life (the family is the session itself).
public struct SessionRecord: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case native, appServices = "app_services", parse }
    public var id: String
    public var familyId: String
    public var userId: String
    public var kind: Kind
    /// Who the session was opened for: the native client id, or the App Services / Parse app id.
    public var audience: String
    public var scope: String
    public var tokenHash: Data
    public var createdAt: Date
    public var expiresAt: Date
    public var rotatedAt: Date?
    public var revokedAt: Date?
    /// The token this one was minted from by a refresh (nil for the first of a family).
    public var parentId: String? = nil
    /// App Services sessions: the device id their login answered, repeated on every refresh.
    public var deviceId: String? = nil
    /// Where the request that made this token came from (the account page shows a family's newest).
    public var ip: String? = nil
    public var userAgent: String? = nil
    /// Native refresh tokens bound to a protected resource (RFC 8707): its URL, the `aud` of every access token they give.
    public var resource: String? = nil

    public init(id: String, familyId: String, userId: String, kind: Kind, audience: String, scope: String, tokenHash: Data,
                createdAt: Date, expiresAt: Date, parentId: String? = nil, deviceId: String? = nil, ip: String? = nil,
                userAgent: String? = nil, resource: String? = nil) {
        self.id = id; self.familyId = familyId; self.userId = userId; self.kind = kind; self.audience = audience
        self.scope = scope; self.tokenHash = tokenHash; self.createdAt = createdAt; self.expiresAt = expiresAt
        self.parentId = parentId; self.deviceId = deviceId; self.ip = ip; self.userAgent = userAgent.map { String($0.prefix(256)) }
        self.resource = resource
    }
}

/// A mail waiting for (or done with) delivery. The body is sealed, never in clear in the database.
public struct OutboxRecord: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable { case pending, sent, failed }
    public var id: Int64?
    public var recipient: String
    public var subject: String
    public var kind: String
    public var sealedBody: Data?
    public var status: Status
    public var attempts: Int
    public var createdAt: Date
    public var nextAttemptAt: Date
    public var sentAt: Date?
    public var lastError: String?
    /// Set while a sender holds the mail: no other sender takes it before then (a lease its sender renews).
    public var claimedUntil: Date?

    public init(id: Int64?, recipient: String, subject: String, kind: String, sealedBody: Data?, status: Status, attempts: Int,
                createdAt: Date, nextAttemptAt: Date, sentAt: Date?, lastError: String?, claimedUntil: Date? = nil) {
        self.id = id; self.recipient = recipient; self.subject = subject; self.kind = kind; self.sealedBody = sealedBody
        self.status = status; self.attempts = attempts; self.createdAt = createdAt; self.nextAttemptAt = nextAttemptAt
        self.sentAt = sentAt; self.lastError = lastError; self.claimedUntil = claimedUntil
    }
}

/// Who did what, when, from where.
public struct AuditEvent: Codable, Sendable, Equatable {
    public var id: Int64?
    public var at: Date
    public var kind: String
    public var userId: String?
    public var email: String?
    public var clientIp: String?
    public var userAgent: String?
    public var detail: String?
    /// The dialect the request came through (`native`, `parse`, `openid`, `admin`, ...); nil before issue S.
    public var dialect: String?
    /// The operator who acted (`console:<name>`, `admin-api`, `cli:<user>`); nil for what end users do.
    public var actor: String?

    public init(id: Int64?, at: Date, kind: String, userId: String? = nil, email: String? = nil, clientIp: String? = nil,
                userAgent: String? = nil, detail: String? = nil, dialect: String? = nil, actor: String? = nil) {
        self.id = id; self.at = at; self.kind = kind; self.userId = userId; self.email = email; self.clientIp = clientIp
        self.userAgent = userAgent; self.detail = detail; self.dialect = dialect; self.actor = actor
    }
}

/// A persisted JWT signing key.
public struct SigningKeyRecord: Codable, Sendable, Equatable {
    public var kid: String
    public var algorithm: String
    public var privateKeyPem: String
    public var createdAt: Date

    public init(kid: String, algorithm: String, privateKeyPem: String, createdAt: Date) {
        self.kid = kid; self.algorithm = algorithm; self.privateKeyPem = privateKeyPem; self.createdAt = createdAt
    }
}

/// A link token (token + tokenId) mailed for email confirmation or password reset. Only the HMAC of the
/// token is stored; single use; a new send replaces the user's older pair of the same kind.
public struct ActionTokenRecord: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case confirmation, reset }
    public var tokenId: String
    public var tokenHash: Data
    public var kind: Kind
    public var userId: String
    public var expiresAt: Date
    public var usedAt: Date?
    public var createdAt: Date

    public init(tokenId: String, tokenHash: Data, kind: Kind, userId: String, expiresAt: Date, usedAt: Date?, createdAt: Date) {
        self.tokenId = tokenId; self.tokenHash = tokenHash; self.kind = kind; self.userId = userId; self.expiresAt = expiresAt
        self.usedAt = usedAt; self.createdAt = createdAt
    }
}
