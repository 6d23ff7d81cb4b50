import Foundation
import Logging

/// The operator's routes: the admin API and the console (the CLI holds the engine itself).
///
/// A router holds `any OperatorSurface`, so the compiler keeps it to these use cases: what it may ask of the engine is this
/// list, and no other surface's.
public protocol OperatorSurface: Sendable {
    func adminApiKeys(_ key: String) async throws -> [ApiKey]
    func adminAuditEvents(_ query: AuditQuery) async throws -> [AuditEvent]
    func adminBrowserSessions(_ key: String) async throws -> [BrowserSessionRecord]
    func adminConsents(_ key: String) async throws -> [ConsentRecord]
    func adminCreateClient(_ new: NewClient, caller: CallerInfo) async throws -> (client: ClientApplication, secret: String?)
    func adminDeleteClient(_ id: String, caller: CallerInfo) async throws
    func adminDeleteUser(_ key: String, caller: CallerInfo) async throws
    func adminEndBrowserSession(_ key: String, sessionId: String, caller: CallerInfo) async throws
    func adminFailedMail(limit: Int) async throws -> [OutboxRecord]
    func adminFindUser(_ key: String) async throws -> UserRecord
    func adminFindUser(provider: String, subject: String) async throws -> UserRecord
    func adminGrantRole(_ key: String, role: String, caller: CallerInfo) async throws
    func adminIdentities(_ key: String) async throws -> (UserRecord, [IdentityRecord])
    func adminPasskeys(_ key: String) async throws -> [PasskeyRecord]
    func adminClearPasskeyFlag(_ key: String, id: String, caller: CallerInfo) async throws
    func adminRemovePasskey(_ key: String, id: String, caller: CallerInfo) async throws
    func adminListUsers(prefix: String?, after: UserCursor?, limit: Int) async throws -> OperatorService.UserPage
    func adminMail(to user: UserRecord, limit: Int) async throws -> [OutboxRecord]
    func adminMail(status: OutboxRecord.Status, limit: Int) async throws -> [OutboxRecord]
    func adminMail(id: Int64) async throws -> OutboxRecord?
    func adminOverview() async throws -> DeploymentOverview
    func adminResetSecondFactors(_ key: String, caller: CallerInfo) async throws -> Int
    func adminRetryFailedMail(caller: CallerInfo) async throws -> Int
    func adminRetryMail(id: Int64, caller: CallerInfo) async throws -> Bool
    func adminRevokeConsent(_ key: String, clientId: String, caller: CallerInfo) async throws
    func adminRevokeRole(_ key: String, role: String, caller: CallerInfo) async throws
    func adminCustomData(_ key: String) async throws -> [CustomDataRecord]
    func adminSetCustomData(_ key: String, appId: String, document: [String: JSONValue]?, caller: CallerInfo) async throws
    func adminRevokeSessions(_ key: String, caller: CallerInfo) async throws
    func adminRoles(_ key: String) async throws -> (UserRecord, [UserRole])
    func adminRotateClientSecret(_ id: String, caller: CallerInfo) async throws -> String
    func adminSecondFactors(_ key: String) async throws -> (UserRecord, [SecondFactorSummary])
    func adminSendPasswordReset(_ key: String, caller: CallerInfo) async throws
    func adminSessions(_ key: String) async throws -> [SessionSummary]
    func adminSetDisabled(_ key: String, disabled: Bool, caller: CallerInfo) async throws -> UserRecord
    func adminUnlink(_ key: String, provider: String, caller: CallerInfo) async throws
    func adminUnlock(_ key: String, caller: CallerInfo) async throws -> UserRecord
    func adminVerifyEmail(_ key: String, caller: CallerInfo) async throws -> UserRecord
    var allClients: [ClientApplication] { get }
    func auditConsoleSignIn(caller: CallerInfo) async throws
    func consoleAccountHolds(_ session: ConsoleSession) async throws -> Bool
    func consoleCSRFToken(_ session: ConsoleSession) -> String
    func consoleCSRFTokenMatches(_ token: String?, session: ConsoleSession) -> Bool
    func consoleCaller(_ session: ConsoleSession, ip: String?, userAgent: String?) -> CallerInfo
    func createServerApiKey(appId: String, name: String?, caller: CallerInfo) async throws -> NewApiKey
    func finishConsoleSignIn(code: String?, state: String?, cookie: String?, redirectURI: String, caller: CallerInfo) async throws -> (session: ConsoleSession, next: String?)
    func isStoredClient(_ id: String) -> Bool
    func source(of client: ClientApplication) -> String
    var logger: Logger { get }
    func newConsoleSession(operatorName: String, credential: [UInt8]) -> ConsoleSession
    func openConsoleSession(_ text: String?, credential: [UInt8], policy: ConsoleSessionPolicy) -> ConsoleSession?
    func revokeApiKey(id: String, caller: CallerInfo) async throws
    func revokeSigningKey(kid: String, caller: CallerInfo) async throws -> OperatorService.SigningKeyInfo?
    func rotateSigningKey(caller: CallerInfo) async throws -> OperatorService.SigningKeyInfo
    func sealConsoleSession(_ session: ConsoleSession) -> String
    func serverApiKeys(appId: String?) async throws -> [ApiKey]
    var settings: EngineSettings { get }
    func signingKeyInfo() async throws -> [OperatorService.SigningKeyInfo]
    func startConsoleSignIn(redirectURI: String, next: String?) -> (authorizeURL: String, cookie: String)
    var store: any Store { get }
    var time: any TimeSource { get }
}


