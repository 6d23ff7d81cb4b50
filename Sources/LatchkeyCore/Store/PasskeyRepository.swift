import Foundation

/// Passkeys (WebAuthn credentials) and the challenges handed out for them. A credential id is unique across the
/// deployment (the insert is the rule); a challenge is taken once, while live.
public protocol PasskeyRepository: Sendable {
    /// `StoreConflict.credentialTaken` when the credential id is registered already (to anyone).
    func insert(_ passkey: PasskeyRecord) async throws
    func passkey(credentialId: Data) async throws -> PasskeyRecord?
    /// The passkey and its account in one read (every sign-in with it needs both).
    func passkeyWithUser(credentialId: Data) async throws -> (passkey: PasskeyRecord, user: UserRecord)?
    /// The account's passkeys, oldest first.
    func passkeys(userId: String) async throws -> [PasskeyRecord]
    /// The passkeys of many accounts (a page of an export), oldest first.
    func passkeys(userIds: [String]) async throws -> [PasskeyRecord]
    /// A sign-in with the passkey: its new counter and backup state. False when it is gone.
    func recordUse(id: String, signCount: Int64, backedUp: Bool, at: Date) async throws -> Bool
    /// The use and the sign-in it made (`SessionNote`), in one write that first takes the challenge with hash
    /// `challenge` if it is still live at `at`: false, with nothing written, when it was not (taken or expired).
    func recordUse(id: String, signCount: Int64, backedUp: Bool, at: Date, noting note: SessionNote, takingChallenge challenge: Data) async throws -> Bool
    /// Marks a passkey whose counter went back (a cloned authenticator), once.
    func flagClone(id: String, at: Date) async throws -> Bool
    /// Clears a clone flag on the account's passkey (its owner or an operator vouched for it); false when none was set.
    func clearCloneFlag(id: String, userId: String) async throws -> Bool
    func renamePasskey(id: String, userId: String, name: String) async throws -> Bool
    func deletePasskey(id: String, userId: String) async throws -> Bool

    func saveChallenge(_ challenge: PasskeyChallengeRecord) async throws
    /// The challenge with this hash, removed, if it is still live at `now`; nil once taken or expired.
    func takeChallenge(hash: Data, now: Date) async throws -> PasskeyChallengeRecord?
    /// What a passkey sign-in reads before its checks, in one read: the challenge with this hash if it is still live at
    /// `now`, left in place (its use takes it), and the passkey with `credentialId` with its account.
    func challengeAndPasskey(hash: Data, now: Date, credentialId: Data) async throws
        -> (challenge: PasskeyChallengeRecord?, passkey: (passkey: PasskeyRecord, user: UserRecord)?)
}

/// One passkey: the credential's public key (COSE) and what is known of it. `userHandle` is the account's opaque
/// WebAuthn user id, never the address.
public struct PasskeyRecord: Codable, Sendable, Equatable {
    public var id: String
    public var userId: String
    public var credentialId: Data
    /// The WebAuthn user handle the authenticator keeps with the credential (the same for every passkey of an account).
    public var userHandle: Data
    public var publicKey: Data
    public var algorithm: Int64
    public var signCount: Int64
    public var name: String
    public var aaguid: Data
    public var backupEligible: Bool
    public var backedUp: Bool
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// When its counter went back: a cloned authenticator; the console shows it.
    public var cloneFlaggedAt: Date?

    public init(id: String, userId: String, credentialId: Data, userHandle: Data, publicKey: Data, algorithm: Int64, signCount: Int64, name: String,
                aaguid: Data, backupEligible: Bool, backedUp: Bool, createdAt: Date, lastUsedAt: Date? = nil, cloneFlaggedAt: Date? = nil) {
        self.id = id; self.userId = userId; self.credentialId = credentialId; self.userHandle = userHandle; self.publicKey = publicKey; self.algorithm = algorithm
        self.signCount = signCount; self.name = name; self.aaguid = aaguid; self.backupEligible = backupEligible; self.backedUp = backedUp
        self.createdAt = createdAt; self.lastUsedAt = lastUsedAt; self.cloneFlaggedAt = cloneFlaggedAt
    }
}

/// A challenge handed to a browser, stored as its hash: what it is for, for whom (registration), and the visit it is
/// bound to (the HMAC of the browser's CSRF cookie).
public struct PasskeyChallengeRecord: Codable, Sendable, Equatable {
    public enum Purpose: String, Codable, Sendable { case registration, authentication }
    public var challengeHash: Data
    public var purpose: Purpose
    public var userId: String?
    public var visitHash: Data
    public var expiresAt: Date

    public init(challengeHash: Data, purpose: Purpose, userId: String?, visitHash: Data, expiresAt: Date) {
        self.challengeHash = challengeHash; self.purpose = purpose; self.userId = userId; self.visitHash = visitHash; self.expiresAt = expiresAt
    }
}
