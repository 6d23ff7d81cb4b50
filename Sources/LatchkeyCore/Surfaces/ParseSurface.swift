import Foundation

/// The Parse routes (ParseSwift's and the Parse SDKs' wire): users, sessions, `authData`, second factors, the
/// mailed-link pages and cloud functions.
///
/// A router holds `any ParseSurface`, so the compiler keeps it to these use cases: what it may ask of the engine is this
/// list, and no other surface's.
public protocol ParseSurface: MailedLinkSurface {
    func parseAuthData(of user: UserRecord) async throws -> [String: [String: String]]
    func parseAuthDataLogin(app: ParseApp, authData: [String: [String: String]], username: String?, password: String?, secondFactor: [String: String]?, installationId: String?, caller: CallerInfo) async throws -> (login: ParseLogin, created: Bool)
    func parseDeleteUser(objectId: String, actor: ParseActor, caller: CallerInfo) async throws
    func parseEndSession(app: ParseApp, id: String, actor: ParseActor, caller: CallerInfo) async throws
    func parseListUsers(_ query: UserQuery, count: Bool) async throws -> (users: [UserRecord], total: Int?)
    func parseLogin(app: ParseApp, username: String?, email: String?, password: String?, secondFactor: [String: String]?, installationId: String?, caller: CallerInfo) async throws -> ParseLogin
    func parseLoginAs(app: ParseApp, objectId: String, installationId: String?, caller: CallerInfo) async throws -> ParseLogin
    func parseLogout(_ session: SessionRecord, caller: CallerInfo) async throws
    func parsePrepareSecondFactor(app: ParseApp, objectId: String, fields: [String: String]?, actor: ParseActor, caller: CallerInfo) async throws -> ParseSecondFactorWrite?
    func parseRequestPasswordReset(app: ParseApp, email rawEmail: String?, caller: CallerInfo) async throws
    func parseResendVerification(app: ParseApp, email rawEmail: String?, caller: CallerInfo) async throws
    func parseResetLinkIsLive(token: String?) async throws -> Bool
    func parseResetPassword(token: String?, password: String?, caller: CallerInfo) async throws
    func parseSession(app: ParseApp, token: String) async throws -> (session: SessionRecord, user: UserRecord)
    func parseSession(app: ParseApp, id: String, actor: ParseActor) async throws -> SessionRecord
    func parseSessions(app: ParseApp, of user: UserRecord) async throws -> [SessionRecord]
    func parseSignUp(app: ParseApp, username rawUsername: String?, email rawEmail: String?, password: String?, fields: [String: JSONValue], emailVerified: Bool?, actor: ParseActor, installationId: String?, caller: CallerInfo) async throws -> ParseLogin
    func parseUpdateUser(app: ParseApp, objectId: String, changes: ParseUserChanges, actor: ParseActor, installationId: String?, caller: CallerInfo) async throws -> (user: UserRecord, sessionToken: String?, recoveryCodes: [String]?)
    func parseUser(objectId: String, actor: ParseActor) async throws -> UserRecord
    func parseVerifyAuthData(app: ParseApp, objectId: String, authData: [String: [String: String]?], actor: ParseActor) async throws -> [IdentityChange]
    func parseVerifyEmail(token: String?, caller: CallerInfo) async throws
    func parseVerifyLinkIsLive(token: String?) async throws -> Bool
    func parseVerifyPassword(app: ParseApp, username: String?, email: String?, password: String?, caller: CallerInfo) async throws -> UserRecord
    func requireParseApp(_ id: String?) throws -> ParseApp
    func runParseFunction(app: ParseApp, name: String, params: [String: JSONValue], actor: ParseActor, user: JSONValue?, installationId: String?, headers: [String: String], caller: CallerInfo) async throws -> JSONValue
}


