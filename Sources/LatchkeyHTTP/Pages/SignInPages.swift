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
                let (token, challenge) = try await engine.hostedCodeSignIn(email: email, caller: visit.caller)
                var visit = visit, interaction = interaction
                interaction.flowToken = token
                interaction.decoyAddress = token == nil ? email : nil
                visit.interaction = interaction
                return codePage(visit, target: challenge.targetLabel, action: "/ui/code", resend: "/ui/code/resend")
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
                // A decoy visit (an address without an account) has no flow: every code is wrong.
                guard let token = interaction.flowToken else { throw LatchkeyError.invalidCode(attemptsLeft: 1) }
                return try await finish(try await engine.signInWithCode(continuationToken: token, code: visit.field("code"), scope: nil, secondFactorOnly: false,
                                                                        caller: visit.caller), interaction, visit)
            } catch let error as LatchkeyError where Self.isWrongCode(error) {
                return codePage(visit, target: nil, action: "/ui/code", resend: "/ui/code/resend", error: text("wrong_code", visit))
            }
        }
        post(router, "/ui/code/resend") { visit, interaction in
            guard let token = interaction.flowToken else {
                let challenge = try await engine.hostedDecoyResend(email: interaction.decoyAddress, caller: visit.caller)
                return codePage(visit, target: challenge.targetLabel, action: "/ui/code", resend: "/ui/code/resend")
            }
            var types = PagesService.browserChallengeTypes
            types.password = false
            guard case .code(let challenge, let next) = try await engine.signInChallenge(continuationToken: token, challengeTypes: types,
                                                                                          caller: visit.caller) else {
                return problem("not_possible", visit, status: .badRequest)
            }
            var visit = visit, interaction = interaction
            interaction.flowToken = next
            visit.interaction = interaction
            return codePage(visit, target: challenge.targetLabel, action: "/ui/code", resend: "/ui/code/resend")
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

    /// `target` is where a code was just sent; nil when the page is shown again (after a wrong code), which names the
    /// target the visit remembers.
    func codePage(_ visit: PageVisit, target: String?, action: String, resend: String?, askPassword: Bool = false,
                  error: String? = nil) -> Response {
        var visit = visit
        if let target { visit.interaction?.codeTarget = target }
        var context: [String: Any] = ["target": visit.interaction?.codeTarget ?? "", "action": action, "askPassword": askPassword]
        if let resend { context["resendAction"] = resend }
        if let error { context["error"] = error }
        return render("code", error == nil ? .ok : .badRequest, context, visit)
    }
}
