import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// RP-initiated logout (`end_session_endpoint`): ends the browser session and the refresh tokens it gave every app,
/// then returns to the app's registered `post_logout_redirect_uri` (with `state`) or says "signed out". Without an ID
/// token hint naming the signed-in user, the user confirms first, so a link on another site cannot sign anyone out.
extension InteractionPages {
    func addSignOutRoutes(to router: Router<LatchkeyRequestContext>) {
        router.get("/oauth2/v2.0/logout") { request, context in
            await signOut(request.uri.queryParameters.map { (String($0.key), String($0.value)) }, visit(request, context), posted: false)
        }
        router.post("/oauth2/v2.0/logout") { request, context in
            let form = try await request.decodeForm(as: PageForm.self, context: context).fields
            return await signOut(form.pairs, visit(request, context, form: form), posted: true)
        }
    }

    private func signOut(_ parameters: [(String, String)], _ visit: PageVisit, posted: Bool) async -> Response {
        var values: [String: String] = [:]
        for (name, value) in parameters where !value.isEmpty { values[name] = values[name] ?? value }
        var visit = visit
        visit.language = pages.language(uiLocales: values["ui_locales"], acceptLanguage: visit.caller.acceptLanguage)
        let checked = await engine.checkLogout(idTokenHint: values["id_token_hint"], clientId: values["client_id"],
                                               postLogoutRedirectUri: values["post_logout_redirect_uri"], state: values["state"])
        let logout: LogoutRequest
        switch checked {
        case .failure(let refusal):
            return pages.render("message", .badRequest, ["title": text("error_title", visit), "message": refusal.message, "isError": true],
                                language: visit.language, cookies: visit.cookies)
        case .success(let request): logout = request
        }
        return await step({
            let signedIn = try await engine.browserSession(cookie: visit.sessionCookie)
            let confirmed = posted && visit.field("confirm") == "yes" && !visit.newCSRFCookie
                && engine.csrfTokenMatches(visit.field("csrf"), cookie: visit.csrfCookie)
            if let signedIn, !confirmed, logout.hintSubject != signedIn.user.id {
                var context: [String: Any] = ["account": signedIn.user.displayName, "csrf": engine.csrfToken(for: visit.csrfCookie)]
                if let client = logout.client { context["clientId"] = client.id }
                if let uri = values["post_logout_redirect_uri"], logout.redirect != nil { context["postLogoutRedirectUri"] = uri }
                if let state = values["state"] { context["state"] = state }
                context["title"] = text("sign_out_title", visit)
                return pages.render("logout", .ok, context, language: visit.language, cookies: visit.cookies)
            }
            var visit = visit
            if let signedIn { try await engine.endBrowserSession(signedIn.session, caller: visit.caller) }
            visit.cookies.append(cookies.clear(cookies.sessionName))
            if let redirect = logout.redirect { return self.redirect(redirect, visit) }
            // Somewhere to go next: the account page, which asks for a sign-in first.
            return pages.render("message", .ok, ["title": text("signed_out_title", visit), "message": text("signed_out", visit),
                                                 "continueURL": SelfService.path, "continueLabel": text("sign_in_again", visit)],
                                language: visit.language, cookies: visit.cookies)
        }, visit: visit)
    }
}
