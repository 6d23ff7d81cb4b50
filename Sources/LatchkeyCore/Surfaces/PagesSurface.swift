import Foundation

/// The OpenID provider and its hosted pages: `/authorize`, the token and userinfo endpoints, the sign-in, sign-up,
/// reset, second-factor and consent pages, upstream issuers, and the pages the mailed links open.
///
/// A router holds `any PagesSurface`, so the compiler keeps it to these use cases: what it may ask of the engine is this
/// list, and no other surface's.
public protocol PagesSurface: ClientAuthenticating, MailedLinkSurface {
    func beginUpstreamSignIn(provider: String, interaction: String) throws -> (redirect: String, cookie: String)
    func browserSession(cookie: String?) async throws -> (session: BrowserSessionRecord, user: UserRecord)?
    func loadMetadataDocumentClient(_ parameters: [(String, String)], caller: CallerInfo) async -> String?
    func checkAuthorization(_ parameters: [(String, String)]) -> Result<(ClientApplication, AuthorizationRequest), AuthorizationRefusal>
    func checkLogout(idTokenHint: String?, clientId: String?, postLogoutRedirectUri: String?, state: String?) async -> Result<LogoutRequest, LogoutRefusal>
    func csrfToken(for cookie: String) -> String
    func csrfTokenMatches(_ token: String?, cookie: String?) -> Bool
    func declineConsent(_ interaction: Interaction, caller: CallerInfo) async throws -> String
    func deviceVisit(userCode typed: String?, csrfCookie: String, caller: CallerInfo) async throws -> Interaction?
    func endBrowserSession(_ session: BrowserSessionRecord, caller: CallerInfo) async throws
    func errorRedirect(_ problem: OpenIDProblem, _ request: AuthorizationRequest) -> String
    func errorRedirect(_ problem: OpenIDProblem, redirectUri: String, state: String?) -> String
    func finishUpstreamSignIn(_ visit: UpstreamVisit, callback: String?, iss: String?, state: String?, code: String?, error: String?, client: ClientApplication, caller: CallerInfo) async throws -> SignInOutcome
    func grantConsent(_ interaction: Interaction, userId: String, caller: CallerInfo) async throws
    func hostedPasswordSignIn(email: String?, password: String?, caller: CallerInfo) async throws -> SignInOutcome
    // The sign-in, sign-up, reset, second-factor and enrolment pages' posts: each takes the visit and answers the
    // step to show with the visit that goes on (PageSteps.swift); the flow's token never leaves the engine.
    func pageMailSignInCode(email: String?, visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction)
    func pageResendCode(visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction)
    func pageSignInCode(_ code: String?, visit: Interaction, caller: CallerInfo) async throws -> PageStep
    func pageSignUp(email: String?, password: String?, attributes: [String: JSONValue], visit: Interaction,
                    caller: CallerInfo) async throws -> (PageStep, Interaction)
    func pageSignUpCode(_ code: String?, visit: Interaction, caller: CallerInfo) async throws -> PageStep
    func pageStartReset(email: String?, visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction)
    func pageFinishReset(code: String?, newPassword: String?, visit: Interaction, caller: CallerInfo) async throws -> PageStep
    func pageSendSecondFactor(methodId: String?, visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction)
    func pageSecondFactorCode(_ code: String?, visit: Interaction, caller: CallerInfo) async throws -> PageStep
    func pageEnrol(target: String?, channel: String?, visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction)
    func pageEnrolCode(_ code: String?, visit: Interaction, caller: CallerInfo) async throws -> PageStep
    func pageBeginAuthenticator(visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction)
    func pageConfirmAuthenticator(_ code: String?, visit: Interaction, caller: CallerInfo) async throws -> (PageStep, Interaction)
    func pageFinishEnrolment(visit: Interaction, caller: CallerInfo) async throws -> PageStep
    func introspect(token: String?, client: ClientApplication) async throws -> [String: JSONValue]
    var keyRing: SigningKeyRing { get }
    func newInteraction(_ request: AuthorizationRequest, csrfCookie: String) -> Interaction
    func visitProgress(_ interaction: Interaction, sessionCookie: String?, consentGiven: Bool,
                       signedIn known: (session: BrowserSessionRecord, user: UserRecord)?, caller: CallerInfo) async throws -> VisitProgress
    func visitProgress(after outcome: SignInOutcome, _ interaction: Interaction, caller: CallerInfo) async throws -> VisitProgress
    func openInteraction(_ text: String?, csrfCookie: String?) -> Interaction?
    func openUpstreamVisit(_ cookie: String?) -> UpstreamVisit?
    func resetPassword(appId: String, token: String?, tokenId: String?, password: String?, caller: CallerInfo) async throws
    func revoke(token: String?, client: ClientApplication, caller: CallerInfo) async throws
    func seal(_ interaction: Interaction) -> String
    var upstreamProviders: [String] { get }
    var passkeysEnabled: Bool { get }
    func passkeyRegistrationOptions(sessionCookie: String?, csrfCookie: String) async throws -> JSONValue
    func registerPasskey(_ body: Data, name: String?, sessionCookie: String?, csrfCookie: String,
                         caller: CallerInfo) async throws -> (passkey: PasskeyRecord, cookie: String?)
    func passkeyAuthenticationOptions(csrfCookie: String) async throws -> JSONValue
    func signInWithPasskey(_ body: Data, interaction: Interaction, csrfCookie: String, caller: CallerInfo) async throws -> VisitProgress
    func userInfo(accessToken: String) async throws -> [String: JSONValue]
}


