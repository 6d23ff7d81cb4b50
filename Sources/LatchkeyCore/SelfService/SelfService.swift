import Foundation

/// The account page: what a person signed in at the hosted pages sees and changes of their own account. It is a
/// built-in first-party client of this provider (`latchkey-account`), so reaching it signs in through the same pages,
/// limits and second factors as any app; after that it works on the browser's SSO session. Every change is audited
/// with the actor `self`; everything that changes a way in needs a recent sign-in (`mfa.recent_sign_in_seconds`).
public struct SelfService: SelfServiceSurface, EngineKernel {
    public let engine: LatchkeyEngine

    public init(engine: LatchkeyEngine) { self.engine = engine }

    public var settings: EngineSettings { engine.settings }

    public static let clientId = "latchkey-account"
    public static let path = "/ui/account"

    /// The built-in client: first party, asking for a second factor when the account has one.
    public static func accountClient(publicURL: String) -> ClientApplication {
        ClientApplication(id: clientId, name: "Your account", mfa: .optional, redirectURIs: [callback(publicURL)], firstParty: true)
    }

    public static func callback(_ publicURL: String) -> String { publicURL + path + "/callback" }

    /// The person signed in at this browser: their live SSO session and active account, when that session is enough
    /// to sign in at the account page's own client (a password-only session of an account with a second factor or a
    /// passkey is not: the page signs them in, and the journey asks for it).
    public func holder(cookie: String?) async throws -> AccountHolder? {
        guard let (session, user) = try await PagesService(engine: engine).browserSession(cookie: cookie),
              try await engine.accounts.assurance(.singleSignOn(Self.accountClient(publicURL: settings.publicURL).mfa), for: user,
                                                  proved: session.proof, in: reader) == .enough else { return nil }
        return AccountHolder(session: session, user: user)
    }

    /// Refuses `ask` (a change to a way in, the download, the deletion) unless the account model's assurance rule
    /// finds the session enough; the page then asks to sign in again, with the account's own factors.
    func requireAssurance(_ ask: Assurance.Ask, _ holder: AccountHolder, proved: SessionProof? = nil) async throws {
        try await engine.accounts.requireAssurance(ask, for: holder.user, proved: proved ?? holder.session.proof, in: reader)
    }

    /// What the session proved, with the account's password typed on the page now (checked and counted as any
    /// password attempt): a recent proof of knowledge besides what the sign-in proved.
    func proof(_ holder: AccountHolder, typedPassword: String?, caller: CallerInfo) async throws -> SessionProof {
        var proved = holder.session.proof
        guard let typedPassword, !typedPassword.isEmpty, holder.user.passwordHash != nil else { return proved }
        _ = try await engine.accounts.checkPassword(typedPassword, for: holder.user, caller: caller)
        try await engine.accounts.releasePasswordAttempt(userId: holder.user.id)
        proved.authTime = time.now()
        if !proved.amr.contains("pwd") { proved.amr.insert("pwd", at: 0) }
        return proved
    }

    /// Mails a new code to an address the account does not hold yet (a new address, a new second factor), within the
    /// mail limits of the caller and of that address; the code, for the caller to keep as pending.
    func mailCode(_ kind: MailKind, to address: String, _ holder: AccountHolder, caller: CallerInfo) async throws -> String {
        try await limit(.mailPerIP, caller.ip, caller: caller)
        try await limit(.mailPerAddress, address, caller: caller)
        let code = engine.proofs.newCode()
        try await engine.standaloneWrite { tx in
            try await self.engine.enqueue(self.engine.mailComposer.compose(kind, to: address, code: code, validMinutes: self.settings.codes.ttlSeconds / 60,
                                                                           locale: self.engine.mailLocale(holder.user.attributes, caller: caller),
                                                                           origin: MailOrigin(dialect: "openid", clientId: Self.clientId),
                                                                           at: self.time.now()), in: tx)
        }
        return code
    }

    /// The account as it is now, read in the transaction that changes it.
    func current(_ holder: AccountHolder, in tx: any Repositories) async throws -> UserRecord {
        guard let user = try await tx.users.find(id: holder.user.id), user.status == .active else { throw AccountPageRefusal.signedOut }
        return user
    }
}

/// Who is at the account page: the browser session and its account.
public struct AccountHolder: Sendable {
    public var session: BrowserSessionRecord
    public var user: UserRecord
}

/// What the account page refuses that no other surface does, each named for the page to explain.
public enum AccountPageRefusal: ServiceRefusal, Sendable, Equatable {
    /// The session or account ended while the page was open.
    case signedOut
    /// The typed address does not match the account's (deleting it).
    case confirmationMismatch
    /// The passkey, session, consent or identity is not this account's (or is gone).
    case notFound
    /// A name that is empty or too long.
    case badName
    /// An authenticator offer that is not this account's or has expired.
    case offerExpired

    public var errorClass: ErrorClass {
        switch self {
        case .signedOut: .unauthenticated
        case .notFound: .notFound
        case .confirmationMismatch, .badName, .offerExpired: .invalid
        }
    }
}

extension CallerInfo {
    /// A caller acting on their own account at the account page.
    static func selfService(_ caller: CallerInfo) -> CallerInfo {
        var caller = caller
        caller.dialect = .openID
        caller.clientId = SelfService.clientId
        caller.actor = "self"
        return caller
    }
}

extension SelfService {
    /// The account page's forms carry the hosted pages' CSRF token (bound to the browser's CSRF cookie).
    public func csrfToken(for cookie: String) -> String { PagesService(engine: engine).csrfToken(for: cookie) }
    public func csrfTokenMatches(_ token: String?, cookie: String?) -> Bool { PagesService(engine: engine).csrfTokenMatches(token, cookie: cookie) }
}
