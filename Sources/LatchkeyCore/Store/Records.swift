import Foundation

/// A user account. One per normalized email address, across all dialects.
public struct UserRecord: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable { case active, pending, disabled }
    public var id: String
    public var email: String
    public var username: String?
    public var passwordHash: String?
    public var emailVerified: Bool
    public var status: Status
    public var attributes: [String: JSONValue]
    public var failedLoginCount: Int
    public var createdAt: Date
    public var updatedAt: Date
    public var lastLoginAt: Date?
    public var lockedUntil: Date?

    public init(id: String, email: String, passwordHash: String?, emailVerified: Bool, status: Status,
                attributes: [String: JSONValue], now: Date) {
        self.id = id; self.email = email; self.username = nil; self.passwordHash = passwordHash
        self.emailVerified = emailVerified; self.status = status; self.attributes = attributes
        self.failedLoginCount = 0; self.createdAt = now; self.updatedAt = now; self.lastLoginAt = nil
        self.lockedUntil = nil
    }
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
}

/// Where a flow stands and what it has collected so far.
public struct FlowState: Codable, Sendable, Equatable {
    public enum Stage: String, Codable, Sendable {
        case started, codeSent, codeVerified, passwordRequired, attributesRequired, passwordChallenged, completed
    }
    public var stage: Stage
    /// The client offered `oob` / `password` in challenge_type; decides passwordless vs. password sign-up.
    public var clientAcceptsCode: Bool
    public var clientAcceptsPassword: Bool
    public var emailVerified = false
    public var passwordHash: String?
    public var attributes: [String: JSONValue] = [:]
    public var clientId: String
    /// A reset flow for an address with no (password) account, kept only when enumeration protection is on:
    /// it answers like a real flow and fails at the code step.
    public var decoy = false

    public init(stage: Stage, clientId: String, acceptsCode: Bool, acceptsPassword: Bool) {
        self.stage = stage; self.clientId = clientId; self.clientAcceptsCode = acceptsCode; self.clientAcceptsPassword = acceptsPassword
    }
}

/// A mailed one-time code, keyed by its flow. Hashed, expiring, with capped attempts, single use.
public struct OTPRecord: Codable, Sendable, Equatable {
    public var flowId: String
    public var codeHash: Data
    public var attemptsLeft: Int
    public var expiresAt: Date
    public var createdAt: Date
}

/// A refresh token. Rotated on every use; all rotations of one sign-in share a family.
public struct RefreshTokenRecord: Codable, Sendable, Equatable {
    public var id: String
    public var familyId: String
    public var userId: String
    public var clientId: String
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
}

/// A persisted JWT signing key.
public struct SigningKeyRecord: Codable, Sendable, Equatable {
    public var kid: String
    public var algorithm: String
    public var privateKeyPem: String
    public var createdAt: Date
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
}
