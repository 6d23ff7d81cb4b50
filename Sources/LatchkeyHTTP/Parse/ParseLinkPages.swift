import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The pages behind the Parse dialect's mailed links, under `<mount>/apps/` with Parse Server's paths (docs/parse.md
/// §1.12), rendered by the same templates and headers as the other hosted pages. No JavaScript: the choose-password
/// page is a plain form.
struct ParseLinkPages: Sendable {
    let engine: any ParseSurface
    let mount: String
    let pages: HTMLPages
    let clientAddress: ClientAddress
    /// The hosted pages' wording of engine errors, shared rather than repeated.
    let hosted: HostedPages

    init(engine: any ParseSurface, mount: String, pages: HTMLPages, clientAddress: ClientAddress) {
        self.engine = engine; self.mount = mount; self.pages = pages; self.clientAddress = clientAddress
        hosted = HostedPages(engine: engine, pages: pages, clientAddress: clientAddress)
    }

    /// The result pages and their words (keys in the pages' words files).
    static let messages: [String: (title: String, message: String, isError: Bool)] = [
        "verify_email_success.html": ("link_verified_title", "link_verified", false),
        "invalid_verification_link.html": ("link_invalid_title", "link_verification_invalid", true),
        "invalid_link.html": ("link_invalid_title", "link_not_valid", true),
        "password_reset_success.html": ("link_password_changed_title", "link_password_changed", false),
    ]

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        let apps = router.group(RouterPath(mount + "/apps"))
        for (name, words) in Self.messages {
            apps.get(RouterPath(name)) { request, _ in
                let language = pages.language(request)
                return pages.render("message", .ok, ["title": pages.text(words.title, language), "message": pages.text(words.message, language),
                                                     "isError": words.isError], language: language)
            }
        }
        // A GET only shows the link's page with a button (mail scanners and link previews open links); the POST verifies.
        apps.get(":appId/verify_email") { request, context in
            let appId = context.parameters.get("appId") ?? "", token = ParseRoutes.query(request)["token"]
            guard (try? engine.requireParseApp(appId)) != nil, let token else { return redirect("invalid_link.html") }
            guard try await engine.parseVerifyLinkIsLive(token: token) else { return redirect("invalid_verification_link.html") }
            let language = pages.language(request)
            return pages.render("confirm_form", .ok, ["title": pages.text("confirm_title", language), "token": token,
                                                      "action": "\(mount)/apps/\(QueryEncoding.encode(appId))/verify_email"], language: language)
        }
        apps.post(":appId/verify_email") { request, context in
            let form = try? await request.decodeForm(as: PageForm.self, context: context).fields
            guard (try? engine.requireParseApp(context.parameters.get("appId"))) != nil, let token = form?["token"] else {
                return redirect("invalid_link.html")
            }
            do {
                try await engine.parseVerifyEmail(token: token, caller: clientAddress.caller(request, context: context))
                return redirect("verify_email_success.html")
            } catch let error as LatchkeyError {
                if let refusal = refusal(error, pages.language(request)) { return refusal }
                return redirect("invalid_verification_link.html")
            }
        }
        apps.get(":appId/request_password_reset") { request, context in
            let appId = context.parameters.get("appId") ?? "", token = ParseRoutes.query(request)["token"]
            guard (try? engine.requireParseApp(appId)) != nil, let token, try await engine.parseResetLinkIsLive(token: token) else {
                return redirect("invalid_link.html")
            }
            return redirect("choose_password", ["token": token, "id": appId])
        }
        apps.get("choose_password") { request, _ in
            let query = ParseRoutes.query(request)
            guard let appId = query["id"], (try? engine.requireParseApp(appId)) != nil, let token = query["token"] else {
                return redirect("invalid_link.html")
            }
            // `error` carries a code, never text: a link someone else made can only pick one of the page's own messages.
            let problem = query["error"].flatMap(PasswordProblem.init(rawValue:)), language = pages.language(request)
            return chooseForm(appId: appId, token: token, error: problem.map { hosted.explain(.passwordRejected($0), language) }, language: language)
        }
        apps.post(":appId/request_password_reset") { request, context in
            try await resetPassword(request, context)
        }
    }

    /// The form's POST (or an XHR with JSON answers, §1.12): success and an unusable link redirect to their pages, a
    /// refused password goes back to the form with the reason.
    private func resetPassword(_ request: Request, _ context: LatchkeyRequestContext) async throws -> Response {
        let appId = context.parameters.get("appId") ?? ""
        let isXHR = request.headers[HTTPField.Name("X-Requested-With")!] == "XMLHttpRequest"
        let form: ChoosePasswordForm
        do {
            form = request.headers[.contentType]?.hasPrefix("application/json") == true
                ? try await request.decode(as: ChoosePasswordJSON.self, context: context).form
                : try await request.decodeForm(as: ChoosePasswordForm.self, context: context)
        } catch is MalformedRequest {
            return isXHR ? ParseError(107, "Invalid JSON.").response : redirect("invalid_link.html")
        }
        guard (try? engine.requireParseApp(appId)) != nil else {
            return isXHR ? ParseError(-1, "Invalid application id.").response : redirect("invalid_link.html")
        }
        if isXHR {
            guard let token = form.token, !token.isEmpty else { return ParseError(-1, "Missing token").response }
            guard let password = form.newPassword, !password.isEmpty else { return ParseError(201, "Missing password").response }
        }
        do {
            try await engine.parseResetPassword(token: form.token, password: form.newPassword, caller: clientAddress.caller(request, context: context))
            return isXHR ? JSONResponse.make(.ok, value: "Password successfully reset") : redirect("password_reset_success.html")
        } catch let error as LatchkeyError {
            // The XHR's answer is Parse's wire, read by code: its words stay English.
            let reason = hosted.explain(error, "en")
            if isXHR {
                if case .rateLimited = error { return ParseError(error).response }
                return ParseError(-1, reason).response
            }
            if let refusal = refusal(error, pages.language(request)) { return refusal }
            if case .passwordRejected(let problem) = error {
                return redirect("choose_password", ["token": form.token ?? "", "id": appId, "error": problem.rawValue])
            }
            return redirect("invalid_link.html")
        }
    }

    private func chooseForm(appId: String, token: String, error: String?, language: String) -> Response {
        var context = hosted.resetForm(token: token, tokenId: "", error: error, language: language)
        context["action"] = "\(mount)/apps/\(QueryEncoding.encode(appId))/request_password_reset"
        context["passwordField"] = "new_password"
        return pages.render("reset_form", .ok, context, language: language)
    }

    /// Over a limit or a store failure: an HTML answer with its status rather than a redirect to a page that would
    /// blame the link.
    private func refusal(_ error: LatchkeyError, _ language: String) -> Response? {
        let status = HostedPages.status(error)
        guard status != .badRequest else { return nil }
        let key = status == .tooManyRequests ? "link_too_many" : "link_server_error"
        return PageStatus.answer(pages.render("message", status, ["title": pages.text("link_failed", language), "message": pages.text(key, language),
                                                                  "isError": true], language: language), for: error)
    }

    private func redirect(_ page: String, _ query: [String: String] = [:]) -> Response {
        var location = "\(mount)/apps/\(page)"
        if !query.isEmpty {
            location += "?" + query.sorted { $0.key < $1.key }.map { "\($0.key)=\(QueryEncoding.encode($0.value))" }.joined(separator: "&")
        }
        return Response(status: .found, headers: [.location: location, .cacheControl: "no-store",
                                                  HTTPField.Name("Referrer-Policy")!: "no-referrer"])
    }
}

/// The choose-password form's fields (Parse's names); `username` and `confirm_new_password` are ignored.
struct ChoosePasswordForm: FormEncodedBody, Decodable, Sendable {
    var token: String?
    var newPassword: String?

    init(form: FormFields) {
        token = form["token"]; newPassword = form["new_password"]
    }

    enum CodingKeys: String, CodingKey {
        case token
        case newPassword = "new_password"
    }
}

/// The same fields posted as JSON.
struct ChoosePasswordJSON: JSONObjectBody, Sendable {
    var form: ChoosePasswordForm
    init(from decoder: any Decoder) throws { form = try ChoosePasswordForm(from: decoder) }
}
