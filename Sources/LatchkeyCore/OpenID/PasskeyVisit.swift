import Foundation

/// Passkeys at the hosted pages: adding one to the account signed in at this browser (after a recent sign-in), and
/// signing in with one during a visit, which then goes on as any sign-in does.
extension PagesService {
    public var passkeysEnabled: Bool { settings.passkeys.enabled }

    /// The browser's signed-in session and account, when the assurance rule lets that session add a passkey.
    private func recentlySignedIn(_ sessionCookie: String?) async throws -> (session: BrowserSessionRecord, user: UserRecord) {
        guard let (session, user) = try await browserSession(cookie: sessionCookie) else {
            throw LatchkeyError.passkeyRefused("sign in first: a passkey is added to the account signed in at this browser")
        }
        try await engine.accounts.requireAssurance(.add(.passkey), for: user, proved: session.proof, in: reader)
        return (session, user)
    }

    public func passkeyRegistrationOptions(sessionCookie: String?, csrfCookie: String) async throws -> JSONValue {
        try await engine.passkeys.registrationOptions(for: try await recentlySignedIn(sessionCookie).user, csrfCookie: csrfCookie)
    }

    /// Adds the passkey; returns it and the browser session's new cookie (its sign-in now counts the passkey).
    public func registerPasskey(_ body: Data, name: String?, sessionCookie: String?, csrfCookie: String,
                                caller: CallerInfo) async throws -> (passkey: PasskeyRecord, cookie: String?) {
        // The account holder adds it to their own account (after a sign-in, or on the account page): the actor is `self`.
        var caller = caller
        caller.actor = "self"
        let (session, user) = try await recentlySignedIn(sessionCookie)
        let passkey = try await engine.passkeys.register(body, for: user, name: name, csrfCookie: csrfCookie, caller: caller)
        let cookie = try await engine.standaloneWrite { try await self.raise(session, addingPasskey: passkey, in: $0) }
        return (passkey, cookie)
    }

    public func passkeyAuthenticationOptions(csrfCookie: String) async throws -> JSONValue {
        try await engine.passkeys.authenticationOptions(csrfCookie: csrfCookie)
    }

    /// Whether a sign-in just finished at the pages is followed by the passkey offer: passkeys are on, the sign-in
    /// was not one, and the account has none yet.
    func passkeyIsOffered(after signIn: BrowserSignIn) async throws -> Bool {
        guard passkeysEnabled, !signIn.amr.contains("hwk"), !signIn.amr.contains("swk") else { return false }
        return try await reader.passkeys.passkeys(userId: signIn.user.id).isEmpty
    }

    /// A passkey sign-in during `interaction`: a browser session, then where the visit goes next.
    /// At a visit's second step (its flow asks for one), the passkey must be the account's own and passes that step.
    public func signInWithPasskey(_ body: Data, interaction: Interaction, csrfCookie: String, caller: CallerInfo) async throws -> VisitProgress {
        if let flowToken = interaction.flowToken {
            let client = try engine.requireClient(interaction.request.clientId)
            let outcome = try await signInWithPasskeyAsSecondFactor(continuationToken: flowToken, body: body, csrfCookie: csrfCookie,
                                                                    client: client, caller: caller)
            return try await visitProgress(after: outcome, interaction, caller: caller)
        }
        var opened: OpenedSignIn?
        let signIn = try await engine.passkeys.authenticate(body, csrfCookie: csrfCookie, caller: caller) { signIn in
            let (cookie, session) = newBrowserSession(signIn, caller: caller)
            opened = OpenedSignIn(cookie: cookie, session: session)
            // The step after this sign-in decided before its write, so that a code for the app rides in it; a passkey
            // offered first, or consent, is decided again after it, as for any sign-in.
            // A device's approval is its own conditional write, after this one.
            guard try await !passkeyIsOffered(after: signIn), !interaction.request.isDevice else { return (session, nil) }
            var visit = interaction
            visit.signedInSession = session.id
            let (step, code) = try await decidedStep(visit, session: session)
            if code != nil, case .redirect(let uri) = step { opened?.redirect = uri }
            return (session, code)
        }
        return try await visitProgress(after: .signedIn(signIn), interaction, caller: caller, opened: opened)
    }
}

/// A browser session a sign-in wrote itself (and its cookie), with the redirect carrying the code written with it.
struct OpenedSignIn {
    var cookie: String
    var session: BrowserSessionRecord
    var redirect: String? = nil
}
