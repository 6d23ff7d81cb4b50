import Foundation

/// The page a hosted-pages visit shows next, as the engine decides it: the pages render it and decide nothing.
public enum VisitPage: Sendable {
    /// The sign-in page (first, or again: `prompt=login`, `max_age`, a second factor the client needs).
    case signIn(loginHint: String?)
    /// A third-party client asks for these scopes; `account` is who is signed in; `clientHost` is where a client
    /// known by its metadata document really is, whatever name the document gives itself.
    case consent(clientName: String, clientHost: String?, scopes: [String], account: String)
    /// The account's second factors to choose from (and whether its passkey may be the one), or the ways to enrol one.
    case secondFactor([AuthMethod], passkey: Bool)
    case enrol([AuthMethod])
    /// Back to the client: with a code, or with an OAuth error.
    case redirect(String)
    /// Signed in, and the account has no passkey: offered one ("Sign in faster next time") before going on.
    case offerPasskey
}

/// A visit moved on: the page to show, the visit as it now is (to seal into that page), and the cookie of a browser
/// session this step opened.
public struct VisitProgress: Sendable {
    public var page: VisitPage
    public var interaction: Interaction
    public var newSessionCookie: String?
}

/// The hosted pages' step machine: after `/authorize` and after each finished sign-in step, where the visit goes.
/// (The sign-in journey itself is the native flows'; this is what comes after a step of it in a browser.)
extension PagesService {
    /// Where the visit goes from here: signed in well enough for this client (or just now, `signedIn`), consent when
    /// it is due, then back to the client with a code.
    public func visitProgress(_ interaction: Interaction, sessionCookie: String?, consentGiven: Bool = false,
                              signedIn known: (session: BrowserSessionRecord, user: UserRecord)? = nil,
                              caller: CallerInfo) async throws -> VisitProgress {
        let signedIn = known == nil ? try await browserSession(cookie: sessionCookie) : known
        let page: VisitPage = switch try await nextStep(interaction, session: signedIn?.session, consentGiven: consentGiven, caller: caller) {
        case .signIn: .signIn(loginHint: interaction.request.loginHint)
        case .consent(let scopes):
            try consentPage(interaction, scopes: scopes, account: signedIn?.user.displayName ?? "")
        case .redirect(let uri): .redirect(uri)
        }
        return VisitProgress(page: page, interaction: interaction)
    }

    private func consentPage(_ interaction: Interaction, scopes: [String], account: String) throws -> VisitPage {
        let client = try engine.requireClient(interaction.request.clientId)
        return .consent(clientName: client.name, clientHost: client.metadataDocumentHost, scopes: scopes, account: account)
    }

    /// Where a finished step of a sign-in journey leads in a browser: a browser session and on, or a second factor
    /// to pass or enrol first.
    public func visitProgress(after outcome: SignInOutcome, _ interaction: Interaction, caller: CallerInfo) async throws -> VisitProgress {
        try await visitProgress(after: outcome, interaction, caller: caller, opened: nil)
    }

    /// `opened`: the browser session the sign-in wrote itself, and the redirect with the code it wrote with it when
    /// the visit was to go straight back to the client.
    func visitProgress(after outcome: SignInOutcome, _ interaction: Interaction, caller: CallerInfo,
                       opened: OpenedSignIn?) async throws -> VisitProgress {
        var interaction = interaction
        switch outcome {
        case .signedIn(let signIn):
            let (cookie, session) = if let opened { (opened.cookie, opened.session) } else { try await openBrowserSession(signIn, caller: caller) }
            interaction.signedInSession = session.id
            interaction.flowToken = nil
            if let redirect = opened?.redirect {
                return VisitProgress(page: .redirect(redirect), interaction: interaction, newSessionCookie: cookie)
            }
            if try await passkeyIsOffered(after: signIn) {
                return VisitProgress(page: .offerPasskey, interaction: interaction, newSessionCookie: cookie)
            }
            var progress = try await visitProgress(interaction, sessionCookie: cookie, signedIn: (session, signIn.user), caller: caller)
            progress.newSessionCookie = cookie
            return progress
        case .mfaRequired(let token):
            let (methods, next) = try await mfaIntrospect(continuationToken: token, caller: caller)
            interaction.flowToken = next
            let passkey = try await passkeyIsSecondFactor(continuationToken: next, caller: caller)
            return VisitProgress(page: .secondFactor(methods, passkey: passkey), interaction: interaction)
        case .registrationRequired(let token):
            let (methods, next) = try await registrationIntrospect(continuationToken: token, caller: caller)
            interaction.flowToken = next
            return VisitProgress(page: .enrol(methods), interaction: interaction)
        case .redirect:
            // The journey asked for a second factor the pages cannot offer this account.
            throw LatchkeyError.secondFactor(.noUsableMethod)
        case .tokens:
            throw LatchkeyError.flowStepMismatch("a browser visit ends in a session, not tokens")
        }
    }
}
