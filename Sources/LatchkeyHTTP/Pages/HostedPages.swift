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
            let query = request.uri.queryParameters
            let token = query["token"].map(String.init), tokenId = query["tokenId"].map(String.init)
            do {
                guard try await engine.confirmationLinkIsLive(token: token, tokenId: tokenId) else { throw LatchkeyError.linkTokenInvalid }
            } catch let error as LatchkeyError {
                return page("message", Self.status(error), ["title": "Confirmation failed", "message": explain(error), "isError": true])
            }
            return page("confirm_form", .ok, ["title": "Confirm your email address", "token": token ?? "", "tokenId": tokenId ?? ""])
        }
        router.post("/confirm") { request, context in
            guard let form = try await linkForm(request, context) else { return unreadable("Confirmation failed") }
            do {
                try await engine.confirmEmail(token: form.token, tokenId: form.tokenId, caller: clientAddress.caller(request, context: context))
                return page("message", .ok, ["title": "Email address confirmed", "message": "Your email address is confirmed. You can sign in now."])
            } catch let error as LatchkeyError {
                return page("message", Self.status(error), ["title": "Confirmation failed", "message": explain(error), "isError": true])
            }
        }
        router.get("/reset-password") { request, _ in
            let query = request.uri.queryParameters
            guard let token = query["token"], let tokenId = query["tokenId"] else {
                return page("message", .badRequest, ["title": "Reset link incomplete", "message": explain(.linkTokenMalformed), "isError": true])
            }
            // A used, expired or broken link says so now, not after a password was chosen.
            do {
                guard try await engine.resetLinkIsLive(token: String(token), tokenId: String(tokenId)) else { throw LatchkeyError.linkTokenInvalid }
            } catch let error as LatchkeyError {
                return page("message", Self.status(error), ["title": "Reset link not valid", "message": explain(error), "isError": true])
            }
            return page("reset_form", .ok, Self.resetForm(token: String(token), tokenId: String(tokenId)))
        }
        router.post("/reset-password") { request, context in
            guard let form = try await linkForm(request, context) else { return unreadable("Reset failed") }
            do {
                try await engine.resetPassword(token: form.token, tokenId: form.tokenId, password: form.password,
                                               caller: clientAddress.caller(request, context: context))
                return page("message", .ok, ["title": "Password changed", "message": "Your password was changed. You can sign in with it now."])
            } catch let error as LatchkeyError {
                if case .passwordRejected = error {
                    return page("reset_form", .badRequest, Self.resetForm(token: form.token ?? "", tokenId: form.tokenId ?? "",
                                                                          error: explain(error)))
                }
                return page("message", Self.status(error), ["title": "Reset failed", "message": explain(error), "isError": true])
            }
        }
    }


    /// A link page's posted form; nil when it cannot be read (other refusals, 413 and 415, go on to the edge).
    private func linkForm(_ request: Request, _ context: LatchkeyRequestContext) async throws -> LinkForm? {
        do { return try await request.decodeForm(as: LinkForm.self, context: context) } catch is MalformedRequest { return nil }
    }

    private func unreadable(_ title: String) -> Response {
        page("message", .badRequest, ["title": title, "message": "The form could not be read. Open the link from the mail again.", "isError": true])
    }

    /// The choose-password form posting back to this page (the Parse dialect's form posts elsewhere).
    static func resetForm(token: String, tokenId: String, error: String? = nil) -> [String: Any] {
        var context: [String: Any] = ["title": "Choose a new password", "action": "reset-password", "passwordField": "password",
                                      "token": token, "tokenId": tokenId]
        if let error { context["error"] = error }
        return context
    }

    private func page(_ name: String, _ status: HTTPResponse.Status, _ context: [String: Any]) -> Response {
        pages.render(name, status, context)
    }

    static func status(_ error: LatchkeyError) -> HTTPResponse.Status { PageStatus.of(error) }

    func explain(_ error: LatchkeyError) -> String {
        switch error {
        case .linkTokenMalformed: return "This link is incomplete. Copy the whole link from the mail."
        case .linkTokenInvalid: return "This link has expired or was already used. Ask the app for a new mail (\"Forgot password\" or \"Resend confirmation\")."
        case .userAlreadyConfirmed: return "This email address is already confirmed."
        case .passwordRejected(.tooShort): return "The password is too short (at least \(engine.settings.passwords.minLength) characters)."
        case .passwordRejected(.tooLong): return "The password is too long (at most \(engine.settings.passwords.maxLength) characters)."
        case .passwordRejected(.banned): return "This password is too common or too close to your email address."
        case .passwordRejected(.tooWeak): return "This password is too weak."
        case .passwordRejected(.recentlyUsed): return "Choose a password different from your current one."
        case .rateLimited, .accountLocked: return "Too many attempts. Try again in a few minutes."
        case .serverBusy: return "The server is busy. Try again in a moment."
        default: return "The request could not be completed."
        }
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
