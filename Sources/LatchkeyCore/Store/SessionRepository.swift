import Foundation

/// Sessions of every kind and their tokens.
public protocol SessionRepository: Sendable {
    func insert(_ session: SessionRecord) async throws
    /// A new session and what its opening records (`SessionNote`), together: a login is one write, not three.
    func insert(_ session: SessionRecord, noting note: SessionNote) async throws
    /// What a sign-in records when it opens no session of its own, in one write.
    func record(_ note: SessionNote) async throws
    /// Inserts all of them, in order, in one trip to the store.
    func insert(contentsOf sessions: [SessionRecord]) async throws
    /// Which of these session ids and token hashes are stored already (an import's check of a batch).
    func existing(ids: [String], tokenHashes: [Data]) async throws -> (ids: Set<String>, tokenHashes: Set<Data>)
    func find(tokenHash: Data) async throws -> SessionRecord?
    func find(id: String) async throws -> SessionRecord?
    /// A user's sessions of one kind for one audience that are neither revoked nor expired at `now`, oldest first.
    func live(userId: String, kind: SessionRecord.Kind, audience: String, now: Date) async throws -> [SessionRecord]
    /// Every one of a user's sessions, of any kind, that is neither revoked nor expired at `now`, oldest first.
    func live(userId: String, now: Date) async throws -> [SessionRecord]
    /// The session and its user in one read (every use of a session token needs both).
    func findWithUser(tokenHash: Data) async throws -> (session: SessionRecord, user: UserRecord)?
    /// A first use of a refresh token as one atomic step: marks `id` rotated if it is neither rotated nor revoked and
    /// only then stores `child`. False, with nothing stored, when it was rotated or revoked already.
    func rotate(id: String, at: Date, child: SessionRecord) async throws -> Bool
    func revoke(familyId: String, at: Date) async throws
    func revoke(userId: String, at: Date) async throws
    /// Revokes every live session of one client (its id is the sessions' audience): the client is gone.
    func revoke(audience: String, at: Date) async throws
    /// Revokes a user's live sessions of one kind from one device or installation.
    func revoke(userId: String, kind: SessionRecord.Kind, deviceId: String, at: Date) async throws
}

/// What a write records beside a session it opens: the audit event, for a sign-in the account's last sign-in (its
/// failed-attempt count and lock cleared, as a successful sign-in does), and for one at the pages its browser session
/// and the code it hands the app.
public struct SessionNote: Sendable, Equatable {
    public var event: AuditEvent
    /// Marks `event.userId`'s account as signed in at `event.at`.
    public var signIn: Bool
    public var browserSession: BrowserSessionRecord?
    /// Issued under `browserSession`.
    public var authorizationCode: AuthorizationCodeRecord?

    public init(event: AuditEvent, signIn: Bool, browserSession: BrowserSessionRecord? = nil, authorizationCode: AuthorizationCodeRecord? = nil) {
        self.event = event
        self.signIn = signIn
        self.browserSession = browserSession
        self.authorizationCode = authorizationCode
    }
}
