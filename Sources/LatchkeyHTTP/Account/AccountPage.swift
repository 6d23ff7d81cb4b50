import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The account page, `/ui/account`: a person's own account, on the hosted pages' browser session. Plain HTML forms
/// (each with the pages' CSRF token), rendered on the server; the passkey button is the pages' one script. A visitor
/// without a session signs in through the hosted pages as the built-in client `latchkey-account` and comes back; a
/// change that needs a recent sign-in sends them to sign in again (`prompt=login`) and back to the section.
struct AccountPage: Sendable {
    let engine: any SelfServiceSurface
    let pages: HTMLPages
    let clientAddress: ClientAddress
    let cookies: PageCookies

    var signInCookie: String { cookies.secure ? "__Host-latchkey_account" : "latchkey_account" }

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        router.get("/ui/account") { request, context in
            let visit = visit(request, context)
            guard let holder = try await engine.holder(cookie: visit.sessionCookie) else { return signIn(next: SelfService.path, stepUp: false, visit) }
            let done = request.uri.queryParameters["done"].map(String.init)
            return try await overviewPage(holder, visit, notice: done.flatMap { pages.strings["en"]?["account_done_\($0)"] != nil ? "account_done_\($0)" : nil })
        }
        router.get("/ui/account/sign-in") { request, context in
            let query = request.uri.queryParameters
            return signIn(next: query["next"].map(String.init), stepUp: query["step_up"] != nil, visit(request, context))
        }
        router.get("/ui/account/callback") { request, context in
            var visit = visit(request, context)
            visit.cookies.append(cookies.clear(signInCookie))
            let query = request.uri.queryParameters
            if query["error"] != nil { return message("account_sign_in_cancelled", visit, status: .badRequest) }
            do {
                let next = try await engine.finishSignIn(code: query["code"].map(String.init), state: query["state"].map(String.init),
                                                         cookie: PageCookies.read(signInCookie, from: request, limit: 2048), caller: visit.caller)
                return redirect(next, visit)
            } catch {
                return message("account_sign_in_stale", visit, status: .badRequest)
            }
        }
        router.get("/ui/account/download") { request, context in
            let visit = visit(request, context)
            guard let holder = try await engine.holder(cookie: visit.sessionCookie) else { return signIn(next: SelfService.path, stepUp: false, visit) }
            let data: Data
            do { data = try await engine.download(holder) } catch LatchkeyError.secondFactor(.signInNotRecent), LatchkeyError.secondFactor(.stepUpNeeded) {
                return signIn(next: "\(SelfService.path)#download", stepUp: true, visit)
            }
            return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store",
                                                   .contentDisposition: "attachment; filename=\"account.json\"",
                                                   HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
                            body: .init(byteBuffer: ByteBuffer(data: data)))
        }
        addChangeRoutes(to: router)
        addFactorRoutes(to: router)
    }

    // MARK: The visit

    /// The browser's CSRF cookie (made on a first visit), SSO cookie, caller and language.
    func visit(_ request: Request, _ context: LatchkeyRequestContext, form: FormFields? = nil) -> PageVisit {
        let existing = PageCookies.read(cookies.csrfName, from: request)
        let csrf = existing ?? SecureRandom.token()
        let language = pages.language(uiLocales: request.uri.queryParameters["ui_locales"].map(String.init),
                                      acceptLanguage: request.headers[.acceptLanguage])
        var visit = PageVisit(csrfCookie: csrf, newCSRFCookie: existing == nil, caller: clientAddress.caller(request, context: context,
                                                                                                          clientId: SelfService.clientId),
                              language: language, form: form, sessionCookie: PageCookies.read(cookies.sessionName, from: request))
        if existing == nil { visit.cookies.append(cookies.set(cookies.csrfName, csrf)) }
        return visit
    }

    /// Sends the browser through the hosted pages (again, for a step-up) and back to `next`.
    func signIn(next: String?, stepUp: Bool, _ visit: PageVisit) -> Response {
        var visit = visit
        let (url, sealed) = engine.startSignIn(next: next, stepUp: stepUp)
        visit.cookies.append(cookies.set(signInCookie, sealed, maxAge: engine.settings.openID.interactionTTLSeconds))
        return redirect(url, visit)
    }

    func redirect(_ uri: String, _ visit: PageVisit) -> Response { visit.seeOther(uri) }

    func render(_ name: String, _ status: HTTPResponse.Status, _ context: [String: Any], _ visit: PageVisit) -> Response {
        var context = context
        context["csrf"] = engine.csrfToken(for: visit.csrfCookie)
        context["title"] = context["title"] ?? text("\(name)_title", visit)
        return pages.render(name, status, context, language: visit.language, cookies: visit.cookies)
    }

    func message(_ key: String, _ visit: PageVisit, status: HTTPResponse.Status) -> Response {
        pages.render("message", status, ["title": text("account_title", visit), "message": text(key, visit), "isError": status.code >= 400,
                                         "continueURL": SelfService.path, "continueLabel": text("account_back", visit)],
                     language: visit.language, cookies: visit.cookies)
    }

    func text(_ key: String, _ visit: PageVisit) -> String {
        pages.strings[visit.language]?[key] ?? pages.strings["en"]?[key] ?? key
    }
}
