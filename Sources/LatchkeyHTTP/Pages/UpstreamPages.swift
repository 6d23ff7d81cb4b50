import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// "Continue with Google" (or Apple, or any configured issuer): the browser goes to the issuer's own sign-in and comes
/// back to `/ui/upstream/callback`, by GET or, as Apple answers, by form post.
extension InteractionPages {
    func addUpstreamRoutes(to router: Router<LatchkeyRequestContext>) {
        post(router, "/ui/upstream") { visit, interaction in
            let (redirect, sealed) = try engine.beginUpstreamSignIn(provider: visit.field("provider") ?? "", interaction: engine.seal(interaction))
            var visit = visit
            visit.cookies.append(cookies.upstream(sealed, maxAge: engine.settings.openID.interactionTTLSeconds))
            return self.redirect(redirect, visit)
        }
        // One callback per issuer; the shared one still takes the answers to sign-ins begun before.
        for path in ["/ui/upstream/callback/:provider", "/ui/upstream/callback"] {
            router.get(RouterPath(path)) { request, context in
                let query = request.uri.queryParameters
                return await upstreamCallback(request, context, callback: context.parameters.get("provider"), iss: query["iss"].map(String.init),
                                              state: query["state"].map(String.init), code: query["code"].map(String.init),
                                              error: query["error"].map(String.init))
            }
            router.post(RouterPath(path)) { request, context in
                let form = try await request.decodeForm(as: PageForm.self, context: context).fields
                return await upstreamCallback(request, context, callback: context.parameters.get("provider"), iss: form["iss"],
                                              state: form["state"], code: form["code"], error: form["error"])
            }
        }
    }

    private func upstreamCallback(_ request: Request, _ context: LatchkeyRequestContext, callback: String?, iss: String?, state: String?,
                                  code: String?, error: String?) async -> Response {
        var visit = visit(request, context)
        visit.cookies.append(cookies.clear(cookies.upstreamName))
        let upstream = engine.openUpstreamVisit(PageCookies.read(cookies.upstreamName, from: request, limit: 4096))
        if let upstream, upstream.linking != nil, let account {
            return await account.finishLink(request, context, upstream, callback: callback, iss: iss, state: state, code: code, error: error)
        }
        guard let upstream,
              let interaction = engine.openInteraction(upstream.interaction, csrfCookie: visit.newCSRFCookie ? nil : visit.csrfCookie) else {
            return problem("expired", visit, status: .badRequest)
        }
        visit.interaction = interaction
        visit.caller.clientId = interaction.request.clientId
        visit.language = pages.language(uiLocales: interaction.request.uiLocales, acceptLanguage: visit.caller.acceptLanguage)
        return await step({
            let client = try engine.requireClient(interaction.request.clientId)
            do {
                return try await finish(try await engine.finishUpstreamSignIn(upstream, callback: callback, iss: iss, state: state, code: code,
                                                                            error: error, client: client, caller: visit.caller), interaction, visit)
            } catch let error as LatchkeyError {
                switch error {
                case .identityRefused, .identityProviderUnavailable, .identityTaken:
                    return PageStatus.answer(signInPage(visit, error: text(Self.explain(error), visit)), for: error)
                default: throw error
                }
            }
        }, visit: visit)
    }
}
