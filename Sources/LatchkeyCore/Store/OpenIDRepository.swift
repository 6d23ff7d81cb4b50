import Foundation

/// The OpenID provider's state (issue R): browser sessions behind the SSO cookie, authorization codes, and the
/// consents third-party clients were given. A code is redeemed once, in one conditional write.
public protocol OpenIDRepository: Sendable {
    func insert(_ session: BrowserSessionRecord) async throws
    func browserSession(tokenHash: Data) async throws -> BrowserSessionRecord?
    /// A user's browser sessions that are neither revoked nor expired at `now`, newest first.
    func browserSessions(userId: String, now: Date) async throws -> [BrowserSessionRecord]
    /// Revokes one browser session; false when it was revoked already (or is unknown).
    func revokeBrowserSession(id: String, at: Date) async throws -> Bool
    func revokeBrowserSessions(userId: String, at: Date) async throws
    /// Gives a live browser session a new cookie and what it proved since (a factor added in it); the id, and so the
    /// token families started under it, stay. False when it was revoked or is unknown.
    func raiseBrowserSession(id: String, tokenHash: Data, amr: String) async throws -> Bool

    func insert(_ code: AuthorizationCodeRecord) async throws
    /// Marks the code used if it is unused and unexpired at `now` and only then stores what its exchange opens, in
    /// the same write: the refresh token's session and what `note` records (the note alone without a session); with
    /// neither, only the mark. False, with nothing written, when the code was unknown, used or expired: of two
    /// redemptions racing, one is true.
    func redeemAuthorizationCode(codeHash: Data, at now: Date, opening session: SessionRecord?, noting note: SessionNote?) async throws -> Bool
    func authorizationCode(codeHash: Data) async throws -> AuthorizationCodeRecord?
    /// The code, its account, and whether the browser session it was issued under is still live at `now` (true for
    /// a code from no browser session), in one read: what an exchange checks before it redeems.
    func authorizationCodeWithUser(codeHash: Data, now: Date) async throws -> (code: AuthorizationCodeRecord, user: UserRecord, signInLive: Bool)?
    /// The refresh-token families that codes issued under a browser session started (revoked at sign-out).
    func tokenFamilies(browserSessionId: String) async throws -> [String]

    func consent(userId: String, clientId: String) async throws -> ConsentRecord?
    /// Stores the consent, replacing the user's earlier one for that client.
    func saveConsent(_ consent: ConsentRecord) async throws
    func consents(userId: String) async throws -> [ConsentRecord]
    /// False when there was none.
    func deleteConsent(userId: String, clientId: String) async throws -> Bool
}

/// A browser's signed-in session at the hosted pages (the SSO cookie); only the cookie's HMAC is stored.
public struct BrowserSessionRecord: Codable, Sendable, Equatable {
    public var id: String
    public var userId: String
    public var tokenHash: Data
    /// How the user proved who they are (RFC 8176 values, space-separated): `pwd`, `otp`, `mfa`, `fed`.
    public var amr: String
    public var authTime: Date
    public var expiresAt: Date
    public var revokedAt: Date?
    public var ip: String?
    public var userAgent: String?

    public init(id: String, userId: String, tokenHash: Data, amr: String, authTime: Date, expiresAt: Date, revokedAt: Date? = nil,
                ip: String? = nil, userAgent: String? = nil) {
        self.id = id; self.userId = userId; self.tokenHash = tokenHash; self.amr = amr; self.authTime = authTime
        self.expiresAt = expiresAt; self.revokedAt = revokedAt; self.ip = ip; self.userAgent = userAgent
    }
}

/// An authorization code, bound to its client, redirect URI and PKCE challenge; only its HMAC is stored. The
/// refresh-token family it will start is chosen when it is issued, so a replay can revoke what it gave.
public struct AuthorizationCodeRecord: Codable, Sendable, Equatable {
    public var codeHash: Data
    public var clientId: String
    public var userId: String
    public var redirectUri: String
    public var codeChallenge: String?
    public var nonce: String?
    public var scope: String
    public var amr: String
    public var authTime: Date
    public var familyId: String
    public var browserSessionId: String?
    public var expiresAt: Date
    public var usedAt: Date?
    /// The protected resource the tokens are for (RFC 8707), as the request named it.
    public var resource: String?

    public init(codeHash: Data, clientId: String, userId: String, redirectUri: String, codeChallenge: String?, nonce: String?,
                scope: String, amr: String, authTime: Date, familyId: String, browserSessionId: String?, expiresAt: Date,
                usedAt: Date? = nil, resource: String? = nil) {
        self.codeHash = codeHash; self.clientId = clientId; self.userId = userId; self.redirectUri = redirectUri
        self.codeChallenge = codeChallenge; self.nonce = nonce; self.scope = scope; self.amr = amr; self.authTime = authTime
        self.familyId = familyId; self.browserSessionId = browserSessionId; self.expiresAt = expiresAt; self.usedAt = usedAt
        self.resource = resource
    }
}

/// What a user let a third-party client have.
public struct ConsentRecord: Codable, Sendable, Equatable {
    public var userId: String
    public var clientId: String
    /// Space-separated scopes.
    public var scope: String
    public var grantedAt: Date

    public init(userId: String, clientId: String, scope: String, grantedAt: Date) {
        self.userId = userId; self.clientId = clientId; self.scope = scope; self.grantedAt = grantedAt
    }
}
