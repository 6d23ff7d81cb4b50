import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import Mustache

/// The few HTML pages for operators without a web app of their own: confirm an email address from its link,
/// choose a new password from a reset link. Plain HTML, no JavaScript, nothing cached or referred, and the
/// token appears only in the form's hidden fields.
struct HostedPages: Sendable {
    let engine: any MailedLinkSurface
    let pages: HTMLPages
    let clientAddress: ClientAddress

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        // A GET only shows the link's page (mail scanners and link previews open links); the button confirms.
        router.get("/confirm") { request, _ in
            let language = pages.language(request)
            let query = request.uri.queryParameters
            let token = query["token"].map(String.init), tokenId = query["tokenId"].map(String.init)
            do {
                guard try await engine.confirmationLinkIsLive(token: token, tokenId: tokenId) else { throw LatchkeyError.linkTokenInvalid }
            } catch let error as LatchkeyError {
                return refused(error, title: "link_confirm_failed_title", language)
            }
            return pages.render("confirm_form", .ok, ["title": pages.text("confirm_title", language), "token": token ?? "",
                                                      "tokenId": tokenId ?? ""], language: language)
        }
        router.post("/confirm") { request, context in
            let language = pages.language(request)
            guard let form = try await linkForm(request, context) else { return unreadable("link_confirm_failed_title", language) }
            do {
                try await engine.confirmEmail(token: form.token, tokenId: form.tokenId, caller: clientAddress.caller(request, context: context))
                return message(.ok, title: "link_confirmed_title", "link_confirmed", language)
            } catch let error as LatchkeyError {
                return refused(error, title: "link_confirm_failed_title", language)
            }
        }
        router.get("/reset-password") { request, _ in
            let language = pages.language(request)
            let query = request.uri.queryParameters
            guard let token = query["token"], let tokenId = query["tokenId"] else {
                return message(.badRequest, title: "link_reset_incomplete_title", "link_incomplete", language)
            }
            // A used, expired or broken link says so now, not after a password was chosen.
            do {
                guard try await engine.resetLinkIsLive(token: String(token), tokenId: String(tokenId)) else { throw LatchkeyError.linkTokenInvalid }
            } catch let error as LatchkeyError {
                return refused(error, title: "link_reset_invalid_title", language)
            }
            return pages.render("reset_form", .ok, resetForm(token: String(token), tokenId: String(tokenId), language: language), language: language)
        }
        router.post("/reset-password") { request, context in
            let language = pages.language(request)
            guard let form = try await linkForm(request, context) else { return unreadable("link_reset_failed_title", language) }
            do {
                try await engine.resetPassword(token: form.token, tokenId: form.tokenId, password: form.password,
                                               caller: clientAddress.caller(request, context: context))
                return message(.ok, title: "link_password_changed_title", "link_password_changed", language)
            } catch let error as LatchkeyError {
                if case .passwordRejected = error {
                    return pages.render("reset_form", .badRequest, resetForm(token: form.token ?? "", tokenId: form.tokenId ?? "",
                                                                             error: explain(error, language), language: language),
                                        language: language)
                }
                return refused(error, title: "link_reset_failed_title", language)
            }
        }
    }

    /// A link page's posted form; nil when it cannot be read (other refusals, 413 and 415, go on to the edge).
    private func linkForm(_ request: Request, _ context: LatchkeyRequestContext) async throws -> LinkForm? {
        do { return try await request.decodeForm(as: LinkForm.self, context: context) } catch is MalformedRequest { return nil }
    }

    private func unreadable(_ title: String, _ language: String) -> Response {
        message(.badRequest, title: title, "link_unreadable", language)
    }

    private func message(_ status: HTTPResponse.Status, title: String, _ key: String, _ language: String) -> Response {
        pages.render("message", status, ["title": pages.text(title, language), "message": pages.text(key, language),
                                         "isError": status != .ok], language: language)
    }

    /// The page explaining a refusal, with the status and `Retry-After` of its class.
    private func refused(_ error: LatchkeyError, title: String, _ language: String) -> Response {
        PageStatus.answer(pages.render("message", .ok, ["title": pages.text(title, language), "message": explain(error, language),
                                                        "isError": true], language: language), for: error)
    }

    /// The choose-password form posting back to this page (the Parse dialect's form posts elsewhere).
    func resetForm(token: String, tokenId: String, error: String? = nil, language: String) -> [String: Any] {
        var context: [String: Any] = ["title": pages.text("link_choose_password_title", language), "action": "reset-password",
                                      "passwordField": "password", "token": token, "tokenId": tokenId,
                                      "minLength": engine.settings.passwords.minLength]
        if let error { context["error"] = error }
        return context
    }

    static func status(_ error: LatchkeyError) -> HTTPResponse.Status { PageStatus.of(error) }

    /// A refusal in the link pages' words (`link_*` in the pages' words files).
    func explain(_ error: LatchkeyError, _ language: String) -> String {
        let passwords = engine.settings.passwords
        let (key, count): (String, Int?) = switch error {
        case .linkTokenMalformed: ("link_incomplete", nil)
        case .linkTokenInvalid: ("link_invalid", nil)
        case .userAlreadyConfirmed: ("link_already_confirmed", nil)
        case .passwordRejected(.tooShort): ("link_password_short", passwords.minLength)
        case .passwordRejected(.tooLong): ("link_password_long", passwords.maxLength)
        case .passwordRejected(.banned): ("link_password_banned", nil)
        case .passwordRejected(.tooWeak): ("link_password_weak", nil)
        case .passwordRejected(.recentlyUsed): ("link_password_reused", nil)
        case .rateLimited, .accountLocked: ("link_too_many", nil)
        case .serverBusy: ("server_busy", nil)
        default: ("link_failed", nil)
        }
        let text = pages.text(key, language)
        return count.map { text.replacingOccurrences(of: "{count}", with: String($0)) } ?? text
    }
}

/// The hosted link pages' form fields: the link's pair, and a reset's new password.
struct LinkForm: FormEncodedBody, Sendable {
    var token: String?
    var tokenId: String?
    var password: String?

    init(form: FormFields) {
        token = form["token"]; tokenId = form["tokenId"]; password = form["password"]
    }
}
