import Foundation

/// The account page: a person's own account, reached through the hosted pages' browser session.
///
/// A router holds `any SelfServiceSurface`, so the compiler keeps it to these use cases.
public protocol SelfServiceSurface: Sendable {
    var settings: EngineSettings { get }
    func holder(cookie: String?) async throws -> AccountHolder?
    func startSignIn(next: String?, stepUp: Bool) -> (authorizeURL: String, cookie: String)
    func finishSignIn(code: String?, state: String?, cookie: String?, caller: CallerInfo) async throws -> String
    func overview(_ holder: AccountHolder) async throws -> AccountOverview
    func updateProfile(_ holder: AccountHolder, attributes given: [String: JSONValue], caller: CallerInfo) async throws
    func startAddressChange(_ holder: AccountHolder, newEmail: String?, currentPassword: String?, caller: CallerInfo) async throws -> String
    func finishAddressChange(_ holder: AccountHolder, newEmail: String?, code: String?, caller: CallerInfo) async throws
    func changePassword(_ holder: AccountHolder, current: String?, new: String?, caller: CallerInfo) async throws -> String
    func renamePasskey(_ holder: AccountHolder, id: String, name raw: String?, caller: CallerInfo) async throws
    func removePasskey(_ holder: AccountHolder, id: String, caller: CallerInfo) async throws
    func clearPasskeyFlag(_ holder: AccountHolder, id: String, caller: CallerInfo) async throws
    func offerAuthenticator(_ holder: AccountHolder) async throws -> AuthenticatorOfferForm
    func openAuthenticatorOffer(_ holder: AccountHolder, sealed: String?) throws -> AuthenticatorOfferForm
    func confirmAuthenticator(_ holder: AccountHolder, sealed: String?, code: String?, caller: CallerInfo) async throws -> (recoveryCodes: [String], cookie: String?)
    func startCodeFactor(_ holder: AccountHolder, kind: SecondFactorRecord.Kind, target raw: String?, caller: CallerInfo) async throws -> String
    func confirmCodeFactor(_ holder: AccountHolder, kind: SecondFactorRecord.Kind, target: String?, code: String?, caller: CallerInfo) async throws -> String?
    func removeFactor(_ holder: AccountHolder, kind: SecondFactorRecord.Kind, caller: CallerInfo) async throws
    func newRecoveryCodes(_ holder: AccountHolder, caller: CallerInfo) async throws -> [String]
    func beginLink(_ holder: AccountHolder, provider: String) async throws -> (redirect: String, cookie: String)
    func finishLink(_ holder: AccountHolder, visit: UpstreamVisit, callback: String?, iss: String?, state: String?, code: String?,
                    error: String?, caller: CallerInfo) async throws
    func unlink(_ holder: AccountHolder, provider: String, caller: CallerInfo) async throws
    func endBrowserSession(_ holder: AccountHolder, id: String, caller: CallerInfo) async throws
    func endAppSession(_ holder: AccountHolder, familyId: String, caller: CallerInfo) async throws
    func endOtherSessions(_ holder: AccountHolder, caller: CallerInfo) async throws
    func withdrawConsent(_ holder: AccountHolder, clientId: String, caller: CallerInfo) async throws
    func download(_ holder: AccountHolder) async throws -> Data
    func deleteAccount(_ holder: AccountHolder, typed: String?, caller: CallerInfo) async throws
    func csrfToken(for cookie: String) -> String
    func csrfTokenMatches(_ token: String?, cookie: String?) -> Bool
}
