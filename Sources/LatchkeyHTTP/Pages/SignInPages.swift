import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The sign-in page: a password, or a code mailed to the address. Neither says whether an address has an account.
extension InteractionPages {
    func addSignInRoutes(to router: Router<LatchkeyRequestContext>) {
        router.get("/ui/sign-in") { request, context in
            let visit = visit(request, context)
            guard visit.interaction != nil else { return problem("expired", visit, status: .badRequest) }
            return signInPage(visit, email: visit.interaction?.request.loginHint)
        }
        post(router, "/ui/sign-in") { visit, interaction in
            let email = visit.field("email")
            if visit.field("method") == "code" {
                let (step, next) = try await engine.pageMailSignInCode(email: email, visit: interaction, caller: visit.caller)
                return page(step, visit, next, code: "/ui/code", resend: "/ui/code/resend")
            }
            do {
                return try await finish(try await engine.hostedPasswordSignIn(email: email, password: visit.field("password"), caller: visit.caller),
                                        interaction, visit)
            } catch let error as LatchkeyError where Self.status(error) == .badRequest {
                return signInPage(visit, email: email, error: text(Self.explain(error), visit), status: .badRequest)
            }
        }
        post(router, "/ui/code") { visit, interaction in
            do {
                return try await afterStep(try await engine.pageSignInCode(visit.field("code"), visit: interaction, caller: visit.caller),
                                      visit, interaction)
            } catch let error as LatchkeyError where Self.isWrongCode(error) {
                return codePage(visit, action: "/ui/code", resend: "/ui/code/resend", error: text("wrong_code", visit))
            }
        }
        post(router, "/ui/code/resend") { visit, interaction in
            let (step, next) = try await engine.pageResendCode(visit: interaction, caller: visit.caller)
            return page(step, visit, next, code: "/ui/code", resend: "/ui/code/resend")
        }
    }

    /// Registers a form post: its CSRF token and interaction are checked first; an engine refusal the handler does not
    /// answer itself becomes the page that explains it.
    func post(_ router: Router<LatchkeyRequestContext>, _ path: String,
              _ handler: @escaping @Sendable (PageVisit, Interaction) async throws -> Response) {
        router.post(RouterPath(path)) { request, context in
            switch try await posted(request, context) {
            case .refused(let page): return page
            case .accepted(let visit, let interaction): return await step({ try await handler(visit, interaction) }, visit: visit)
            }
        }
    }

    /// The code page for the step a post led to (the visit names where the code went; empty: the authenticator app).
    func codePage(_ visit: PageVisit, action: String, resend: String?, askPassword: Bool = false, error: String? = nil,
                  passwordInvalid: Bool = false) -> Response {
        let target = visit.interaction?.codeTarget ?? "", minLength = engine.settings.passwords.minLength
        var context: [String: Any] = ["target": target.isEmpty ? text("authenticator", visit) : target, "action": action,
                                      "askPassword": askPassword, "passwordInvalid": passwordInvalid, "minLength": minLength,
                                      "passwordRule": text("password_rule", visit).replacingOccurrences(of: "{count}", with: String(minLength))]
        // An authenticator app makes its own codes: nothing to send again.
        if let resend, !target.isEmpty { context["resendAction"] = resend }
        if let error { context["error"] = error }
        return render("code", error == nil ? .ok : .badRequest, context, visit)
    }

    /// The page a step shows, the visit carrying `next` (the step's own visit: the flow's token, sealed).
    func page(_ step: PageStep, _ visit: PageVisit, _ next: Interaction, code action: String = "", resend: String? = nil,
              askPassword: Bool = false) -> Response {
        var visit = visit
        visit.interaction = next
        switch step {
        case .codeSent: return codePage(visit, action: action, resend: resend, askPassword: askPassword)
        case .authenticator(let offer): return render("authenticator", .ok, ["secret": offer.secret, "uri": offer.uri], visit)
        case .recoveryCodes(let codes): return render("recovery", .ok, ["codes": codes], visit)
        case .finished, .notPossible: return problem("not_possible", visit, status: .badRequest)
        }
    }

    /// A step that may end the journey: its end goes where the visit's progress says.
    func afterStep(_ step: PageStep, _ visit: PageVisit, _ interaction: Interaction) async throws -> Response {
        guard case .finished(let outcome) = step else { return page(step, visit, interaction, code: "") }
        return try await finish(outcome, interaction, visit)
    }
}
