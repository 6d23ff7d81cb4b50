import Foundation

/// The App Services routes (the Realm SDKs' wire): registration, confirmation, reset, logins by every provider,
/// sessions, user API keys.
///
/// A router holds `any AppServicesSurface`, so the compiler keeps it to these use cases: what it may ask of the engine is this
/// list, and no other surface's.
public protocol AppServicesSurface: Sendable {
    func appDeleteUser(accessToken: String?, caller: CallerInfo) async throws
    func appIdentityLogin(appId: String, providerType: String, credential: AppCredential, caller: CallerInfo) async throws -> AppLogin
    func appLink(appId: String, providerType: String, credential: AppCredential, accessToken: String?, caller: CallerInfo) async throws -> AppLogin
    func appLinkPassword(appId: String, username: String?, password: String?, accessToken: String?, caller: CallerInfo) async throws -> AppLogin
    func appLogin(appId: String, username: String?, password: String?, caller: CallerInfo) async throws -> AppLogin
    func appProfile(accessToken: String?) async throws -> [String: JSONValue]
    func appLogout(refreshToken: String?, caller: CallerInfo) async throws
    func appProviderType(_ provider: String) -> String
    func appRefresh(refreshToken: String?) async throws -> String
    func callAppFunction(appId: String, name: String, arguments: [JSONValue], accessToken: String?, caller: CallerInfo) async throws -> JSONValue
    func callResetFunction(appId: String, email rawEmail: String?, password: String?, arguments: [JSONValue], caller: CallerInfo) async throws
    func confirm(appId: String, token: String?, tokenId: String?, caller: CallerInfo) async throws
    func createUserApiKey(refreshToken: String?, name: String?, caller: CallerInfo) async throws -> NewApiKey
    func deleteUserApiKey(refreshToken: String?, id: String, caller: CallerInfo) async throws
    func identities(ofUsers ids: [String]) async throws -> [String: [IdentityRecord]]
    func identities(of user: UserRecord) async throws -> [IdentityRecord]
    func register(appId: String, email rawEmail: String?, password: String?, caller: CallerInfo) async throws
    func requireApp(_ id: String) throws -> AppServicesApp
    func resendConfirmation(appId: String, email rawEmail: String?, caller: CallerInfo) async throws
    func resetPassword(appId: String, token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws
    func resetPassword(token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws
    func retryConfirmation(appId: String, email rawEmail: String?, caller: CallerInfo) async throws
    func sendPasswordReset(appId: String, email rawEmail: String?, caller: CallerInfo) async throws
    func setUserApiKeyDisabled(refreshToken: String?, id: String, disabled: Bool, caller: CallerInfo) async throws
    var settings: EngineSettings { get }
    var tenantId: String { get }
    func userApiKey(refreshToken: String?, id: String) async throws -> ApiKey
    func userApiKeys(refreshToken: String?) async throws -> [ApiKey]
    func userForAccessToken(_ token: String, audience: AccessTokenAudience) async throws -> UserRecord
}


