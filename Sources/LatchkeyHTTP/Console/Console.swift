import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import NIOCore

/// The operator console (`/console/` on the admin listener): server-rendered pages over the admin API's engine
/// calls. An operator signs in with the admin token and a name; every change they make is audited as
/// `console:<name>`. No script, no external asset; every form carries a CSRF token.
struct Console: Sendable {
    let engine: any OperatorSurface
    let pages: HTMLPages
    let style: String
    let policy: ConsoleSessionPolicy
    /// SHA-256 of the admin token: what sign-in compares against and what a session is bound to.
    let credential: [UInt8]
    let cookie: ConsoleCookie
    let accountCallback: String?
    /// Test mode's captured codes and clock; nil outside test mode.
    let testMode: ConsoleTestMode?

    init(engine: any OperatorSurface, options: ConsoleOptions, token: String, secure: Bool) {
        self.engine = engine
        self.pages = Self.pages(options)
        self.style = options.style
        self.policy = options.policy
        self.credential = Digest.sha256(Array(token.utf8))
        self.cookie = ConsoleCookie(secure: secure)
        self.accountCallback = options.accountCallback
        self.testMode = options.testMode
    }

    static func pages(_ options: ConsoleOptions) -> HTMLPages {
        var pages = HTMLPages(templates: options.templates, strings: options.strings)
        // Unlike the sign-in pages, nothing here posts or redirects off this origin.
        pages.contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; "
            + "base-uri 'none'"
        return pages
    }

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        let console = router.group("/console")
        console.get("/style.css") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "max-age=3600"],
                     body: .init(byteBuffer: ByteBuffer(string: self.style)))
        }
        addSignInRoutes(to: console)
        console.get("/") { request, context in try await self.overview(try await self.visit(request, context)) }
        addUserRoutes(to: console)
        addUserActionRoutes(to: console)
        addMailRoutes(to: console)
        addKeyRoutes(to: console)
        addAuditRoutes(to: console)
        addClientRoutes(to: console)
        addTestModeRoutes(to: console)
    }

    // MARK: Sessions

    /// The signed-in operator's visit, or `ConsoleSignInRequired`.
    func visit(_ request: Request, _ context: LatchkeyRequestContext) async throws -> ConsoleVisit {
        guard let session = engine.openConsoleSession(PageCookies.read(cookie.name, from: request, limit: 2048), credential: credential,
                                                      policy: policy),
              try await engine.consoleAccountHolds(session) else {
            throw ConsoleSignInRequired(next: request.method == .get ? request.uri.description : nil)
        }
        return ConsoleVisit(session: session, language: language(request),
                            caller: engine.consoleCaller(session, ip: context.remoteAddress?.ipAddress, userAgent: request.headers[.userAgent]),
                            csrf: engine.consoleCSRFToken(session))
    }

    /// A form post from the signed-in operator with its CSRF token checked, and the form's fields.
    func post(_ request: Request, _ context: LatchkeyRequestContext) async throws -> (ConsoleVisit, FormFields) {
        let visit = try await visit(request, context)
        let form = try await request.decodeForm(as: ConsoleForm.self, context: context).fields
        guard engine.consoleCSRFTokenMatches(form["csrf"], session: visit.session) else { throw ConsoleCSRFRefused() }
        return (visit, form)
    }

    func language(_ request: Request) -> String {
        pages.language(uiLocales: nil, acceptLanguage: request.headers[.acceptLanguage])
    }

    // MARK: Answers

    /// A page for the signed-in operator; the session cookie is sealed again, so its idle clock restarts.
    func page(_ name: String, _ visit: ConsoleVisit, _ values: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        var values = values
        values["signedIn"] = true
        values["operator"] = visit.session.operatorName
        values["csrf"] = visit.csrf
        values["testMode"] = testMode != nil
        if let section = values["section"] as? String { values["is_\(section)"] = true }
        return pages.render(name, status, Self.pruned(values), language: visit.language,
                            cookies: [cookie.set(engine.sealConsoleSession(visit.session))])
    }

    /// The values without their empty strings: Mustache counts "" as present, and `{{#detail}}…{{/detail}}` should
    /// show nothing for a mail without an error or a user without a username.
    static func pruned(_ values: [String: Any]) -> [String: Any] {
        values.compactMapValues { value -> Any? in
            switch value {
            case let text as String: return text.isEmpty ? nil : text
            case let nested as [String: Any]: return pruned(nested)
            case let list as [[String: Any]]: return list.map(pruned)
            default: return value
            }
        }
    }

    /// After a change: back to a page that says what was done (`done` names a `done_<action>` string).
    func redirect(_ path: String, _ visit: ConsoleVisit, done: String) -> Response {
        var response = Self.redirect(path + (path.contains("?") ? "&" : "?") + "done=\(done)")
        response.headers.append(HTTPField(name: .setCookie, value: cookie.set(engine.sealConsoleSession(visit.session))))
        return response
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// What the last change did, in the page's language (`?done=` of the redirect after it).
    func notice(_ request: Request, _ visit: ConsoleVisit) -> String? {
        guard let done = request.uri.queryParameters["done"], done.count <= 40 else { return nil }
        return pages.strings[visit.language]?["done_\(done)"]
    }

    /// Words of the visit's language, for text built in Swift (chart captions, states).
    func word(_ key: String, _ visit: ConsoleVisit) -> String {
        pages.strings[visit.language]?[key] ?? pages.strings["en"]?[key] ?? key
    }

    /// "1 attempt", "3 attempts": the `<key>_one` word for one, `<key>` for any other count (both languages shipped
    /// put the singular only at one).
    func counted(_ count: Int, _ key: String, _ visit: ConsoleVisit) -> String {
        "\(count) \(word(count == 1 ? "\(key)_one" : key, visit))"
    }
}

/// Any console form: the fields by name (which ones matter is the route's business).
struct ConsoleForm: FormEncodedBody, Sendable {
    var fields: FormFields
    init(form: FormFields) { fields = form }
}
