import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The OpenID provider's browser side (issue R): `/authorize` and the hosted sign-in pages under `/ui/`. Every
/// page is rendered on the server (no JavaScript needed), every form carries a CSRF token bound to the browser's
/// cookie, and the visit's request travels sealed in the forms, so any replica can serve the next step.
struct InteractionPages: Sendable {
    let engine: any PagesSurface
    let pages: HTMLPages
    let clientAddress: ClientAddress
    let cookies: PageCookies
    let style: String
    let script: String
    /// Finishes the links the account page begins (they come back on the same issuer callback).
    let account: AccountPage?

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        for prefix in ["", "/:tenant"] {
            router.get("\(prefix)/oauth2/v2.0/authorize") { request, context in
                await authorize(request.uri.queryParameters.map { (String($0.key), String($0.value)) }, visit(request, context))
            }
            router.post("\(prefix)/oauth2/v2.0/authorize") { request, context in
                let form = try await request.decodeForm(as: PageForm.self, context: context).fields
                return await authorize(form.pairs, visit(request, context))
            }
        }
        let css = ByteBuffer(string: style)
        router.get("/ui/style.css") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=3600"],
                     body: .init(byteBuffer: css))
        }
        let js = ByteBuffer(string: script)
        router.get("/ui/passkeys.js") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "public, max-age=3600",
                                            HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
                     body: .init(byteBuffer: js))
        }
        // Always routed, so every deployment answers it alike (a wrong method is 405); without a logo, 404.
        let logo = pages.brand.logo, bytes = logo.map { ByteBuffer(bytes: $0.bytes) }
        router.get(RouterPath(PageBrand.logoPath)) { _, _ in
            guard let logo, let bytes else { return pages.error(.notFound, message: "No logo is configured.") }
            // An SVG opened on its own is a document of this origin: it may draw, never run or fetch anything.
            return Response(status: .ok, headers: [.contentType: logo.contentType, .cacheControl: "public, max-age=3600",
                                                   HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                                                   HTTPField.Name("Content-Security-Policy")!: "default-src 'none'; style-src 'unsafe-inline'; sandbox"],
                            body: .init(byteBuffer: bytes))
        }
        addSignInRoutes(to: router)
        addAccountRoutes(to: router)
        addSecondFactorRoutes(to: router)
        addSignOutRoutes(to: router)
        addUpstreamRoutes(to: router)
        addPasskeyRoutes(to: router)
        addDeviceRoutes(to: router)
    }

    // MARK: The visit

    func visit(_ request: Request, _ context: LatchkeyRequestContext, form: FormFields? = nil) -> PageVisit {
        let existing = PageCookies.read(cookies.csrfName, from: request)
        let csrf = existing ?? SecureRandom.token()
        let sealed = form?["interaction"] ?? request.uri.queryParameters["interaction"].map(String.init)
        let interaction = engine.openInteraction(sealed, csrfCookie: existing)
        var caller = clientAddress.caller(request, context: context, clientId: interaction?.request.clientId)
        caller.audience = .browser  // every journey the pages drive ends in a browser session
        let language = pages.language(uiLocales: interaction?.request.uiLocales, acceptLanguage: request.headers[.acceptLanguage])
        if interaction?.request.uiLocales != nil { caller.acceptLanguage = language }  // mails in the language the app asked for
        var visit = PageVisit(csrfCookie: csrf, newCSRFCookie: existing == nil, interaction: interaction, caller: caller,
                              language: language, form: form, sessionCookie: PageCookies.read(cookies.sessionName, from: request))
        if existing == nil { visit.cookies.append(cookies.set(cookies.csrfName, csrf)) }
        visit.passkeyLater = PageCookies.read(passkeyLaterCookie, from: request) != nil
        return visit
    }

    /// A posted form's visit, when its CSRF token and interaction hold; otherwise the page that says why.
    func posted(_ request: Request, _ context: LatchkeyRequestContext) async throws -> Posted {
        let form = try await request.decodeForm(as: PageForm.self, context: context).fields
        let visit = visit(request, context, form: form)
        guard !visit.newCSRFCookie, engine.csrfTokenMatches(form["csrf"], cookie: visit.csrfCookie) else {
            return .refused(problem("csrf", visit, status: .forbidden))
        }
        guard let interaction = visit.interaction else { return .refused(problem("expired", visit, status: .badRequest)) }
        return .accepted(visit, interaction)
    }

    // MARK: Authorize

    func authorize(_ parameters: [(String, String)], _ visit: PageVisit) async -> Response {
        var visit = visit
        if let problem = await engine.loadMetadataDocumentClient(parameters, caller: visit.caller) {
            return pages.render("message", .badRequest, ["title": text("error_title", visit), "message": problem, "isError": true],
                                language: visit.language, cookies: visit.cookies)
        }
        switch engine.checkAuthorization(parameters) {
        case .failure(.errorPage(let message)):
            return pages.render("message", .badRequest, ["title": text("error_title", visit), "message": message, "isError": true],
                                language: visit.language, cookies: visit.cookies)
        case .failure(.redirect(let problem, let uri, let state)):
            return redirect(engine.errorRedirect(problem, redirectUri: uri, state: state), visit)
        case .success(let (_, request)):
            let interaction = engine.newInteraction(request, csrfCookie: visit.csrfCookie)
            visit.interaction = interaction
            visit.language = pages.language(uiLocales: request.uiLocales, acceptLanguage: visit.caller.acceptLanguage)
            visit.caller.clientId = request.clientId
            return await step { try await proceed(interaction, visit) }
        }
    }

    /// Renders where the engine says the visit goes next (after `/authorize`, or after consent).
    func proceed(_ interaction: Interaction, _ visit: PageVisit, consentGiven: Bool = false,
                 signedIn: (session: BrowserSessionRecord, user: UserRecord)? = nil) async throws -> Response {
        show(try await engine.visitProgress(interaction, sessionCookie: visit.sessionCookie, consentGiven: consentGiven,
                                            signedIn: signedIn, caller: visit.caller), visit)
    }

    /// Renders where a finished step of a sign-in journey leads, as the engine decides it. A browser that said "not
    /// now" to the passkey offer goes straight on.
    func finish(_ outcome: SignInOutcome, _ interaction: Interaction, _ visit: PageVisit) async throws -> Response {
        let progress = try await engine.visitProgress(after: outcome, interaction, caller: visit.caller)
        guard case .offerPasskey = progress.page, let cookie = progress.newSessionCookie,
              visit.passkeyLater else { return show(progress, visit) }
        var visit = visit
        visit.cookies.append(cookies.session(cookie))
        visit.sessionCookie = cookie
        return try await proceed(progress.interaction, visit)
    }

    /// The page for the engine's step: the pages render, the engine decides.
    func show(_ progress: VisitProgress, _ visit: PageVisit) -> Response {
        var visit = visit
        visit.interaction = progress.interaction
        if let cookie = progress.newSessionCookie {
            visit.cookies.append(cookies.session(cookie))
            visit.sessionCookie = cookie
        }
        switch progress.page {
        case .signIn(let hint): return signInPage(visit, email: hint)
        case .consent(let clientName, let clientHost, let scopes, let account):
            var context: [String: Any] = ["clientName": clientName, "scopes": scopes, "account": account]
            if let host = clientHost { context["clientHost"] = host }
            if let code = progress.interaction.request.deviceUserCode { context["deviceCode"] = UserCode.display(code) }
            if let resource = progress.interaction.request.resource { context["resource"] = resource }
            return render("consent", .ok, context, visit)
        case .secondFactor(let methods, let passkey): return secondFactorPage(methods, passkey: passkey, visit)
        case .enrol(let methods): return enrolPage(methods, visit)
        case .redirect(let uri): return redirect(uri, visit)
        case .offerPasskey: return render("passkey_offer", .ok, [:], visit)
        }
    }

    // MARK: Rendering

    func render(_ name: String, _ status: HTTPResponse.Status, _ context: [String: Any], _ visit: PageVisit) -> Response {
        var context = context
        context["csrf"] = engine.csrfToken(for: visit.csrfCookie)
        if let interaction = visit.interaction { context["interaction"] = engine.seal(interaction) }
        context["title"] = context["title"] ?? text("\(name)_title", visit)
        return pages.render(name, status, context, language: visit.language, cookies: visit.cookies)
    }

    func signInPage(_ visit: PageVisit, email: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let client = visit.interaction.flatMap { try? engine.requireClient($0.request.clientId) }
        let providers = engine.upstreamProviders.map { ["name": $0, "label": "\(text("continue_with", visit)) \(Self.label($0))"] }
        var context: [String: Any] = ["clientName": client?.name ?? "", "email": email ?? "", "providers": providers,
                                      "hasProviders": !providers.isEmpty, "passkeys": engine.passkeysEnabled,
                                      // A sign-in asked for again (`prompt=login`, the account page's step-up) is chosen,
                                      // not autofilled: the autofill would repeat the proof the session already had.
                                      "passkeyAutofill": engine.passkeysEnabled && visit.interaction?.request.prompt.contains("login") != true]
        if let error { context["error"] = error }
        return render("sign_in", status, context, visit)
    }

    static func label(_ provider: String) -> String { PagesService.providerLabel(provider) }

    /// A page that only explains (`key` in the pages' words).
    func problem(_ key: String, _ visit: PageVisit, status: HTTPResponse.Status) -> Response {
        pages.render("message", status, ["title": text("error_title", visit), "message": text(key, visit), "isError": true],
                     language: visit.language, cookies: visit.cookies)
    }

    func redirect(_ uri: String, _ visit: PageVisit) -> Response { visit.seeOther(uri) }

    func text(_ key: String, _ visit: PageVisit) -> String {
        pages.strings[visit.language]?[key] ?? pages.strings["en"]?[key] ?? key
    }


    /// Runs a step; an engine refusal that no page handles becomes the page that explains it.
    func step(_ body: () async throws -> Response, visit: PageVisit? = nil) async -> Response {
        do { return try await body() } catch let error as LatchkeyError {
            let fallback = visit ?? PageVisit(csrfCookie: "", newCSRFCookie: false, caller: CallerInfo(clientId: nil), language: "en")
            return PageStatus.answer(problem(Self.explain(error), fallback, status: .ok), for: error)
        } catch {
            let fallback = visit ?? PageVisit(csrfCookie: "", newCSRFCookie: false, caller: CallerInfo(clientId: nil), language: "en")
            return problem("not_possible", fallback, status: .internalServerError)
        }
    }

    /// The pages' words for an engine refusal.
    static func explain(_ error: LatchkeyError) -> String {
        switch error {
        case .invalidCredentials, .userNotFound, .userHasNoPassword, .missing(.password): "wrong_credentials"
        case .invalidCode, .secondFactorInvalid, .missing(.code): "wrong_code"
        case .rateLimited: "too_many"
        case .accountLocked: "locked"
        case .serverBusy: "server_busy"
        case .flowTokenExpired, .flowTokenInvalid, .missing(.continuationToken): "expired"
        case .emailTaken, .usernameTaken: "account_exists"
        case .passwordRejected(.tooShort): "password_short"
        case .passwordRejected(.tooLong): "password_long"
        case .passwordRejected(.recentlyUsed): "password_reused"
        case .passwordRejected: "password_weak"
        case .invalidEmail, .missing(.email), .missing(.username), .invalidUsername: "invalid_email"
        case .invalidAttributes: "attributes_invalid"
        case .secondFactor(.deliveryFailed): "delivery_failed"
        case .secondFactor(.invalidContact): "invalid_contact"
        case .secondFactor(.sameKindAsFirstFactor): "same_factor"
        case .secondFactor(.noUsableMethod): "no_second_factor"
        case .identityRefused, .identityTaken: "upstream_failed"
        case .identityProviderUnavailable: "upstream_unavailable"
        default: "not_possible"
        }
    }

    /// The words for a refusal, the password rule's numbers filled in ("at least 12 characters").
    static func words(for error: LatchkeyError, settings passwords: PasswordPolicy, text: (String) -> String) -> String {
        let words = text(explain(error))
        switch error {
        case .passwordRejected(.tooShort): return words.replacingOccurrences(of: "{count}", with: String(passwords.minLength))
        case .passwordRejected(.tooLong): return words.replacingOccurrences(of: "{count}", with: String(passwords.maxLength))
        default: return words
        }
    }

    /// Which field a refusal is about, for the page to focus it and tie the words to it.
    static func field(of error: LatchkeyError) -> String? {
        switch error {
        case .passwordRejected, .missing(.password), .missing(.newPassword): "password"
        case .invalidEmail, .missing(.email), .missing(.username), .invalidUsername, .emailTaken, .usernameTaken: "email"
        case .invalidAttributes: "attributes"
        case .invalidCode, .missing(.code): "code"
        default: nil
        }
    }

    /// A refusal the code page answers itself (ask again), rather than a page of its own.
    static func isWrongCode(_ error: LatchkeyError) -> Bool { explain(error) == "wrong_code" }

    static func status(_ error: LatchkeyError) -> HTTPResponse.Status { PageStatus.of(error) }
}

/// A posted form: checked, or the page that says why not.
enum Posted {
    case accepted(PageVisit, Interaction)
    case refused(Response)
}

/// A posted page form, every field kept.
struct PageForm: FormEncodedBody, Sendable {
    let fields: FormFields
    init(form: FormFields) { fields = form }
}
