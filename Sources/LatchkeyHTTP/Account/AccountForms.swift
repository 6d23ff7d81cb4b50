import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// A posted account-page form: its CSRF token checked, the person signed in. Every refusal becomes a page: a sign-in
/// too old for the change sends the browser to sign in again and back to the section; anything else shows the
/// account page with the reason.
extension AccountPage {
    typealias AccountForm = @Sendable (PageVisit, AccountHolder) async throws -> Response

    func post(_ router: Router<LatchkeyRequestContext>, _ path: String, section: String, _ handler: @escaping AccountForm) {
        router.post(RouterPath(path)) { request, context in
            let form = try await request.decodeForm(as: PageForm.self, context: context).fields
            let visit = visit(request, context, form: form)
            guard !visit.newCSRFCookie, engine.csrfTokenMatches(form["csrf"], cookie: visit.csrfCookie) else {
                return message("csrf_account", visit, status: .forbidden)
            }
            guard let holder = try await engine.holder(cookie: visit.sessionCookie) else { return signIn(next: SelfService.path, stepUp: false, visit) }
            do {
                return try await handler(visit, holder)
            } catch LatchkeyError.secondFactor(.signInNotRecent), LatchkeyError.secondFactor(.stepUpNeeded) {
                return signIn(next: "\(SelfService.path)#\(section)", stepUp: true, visit)
            } catch AccountPageRefusal.signedOut {
                return signIn(next: SelfService.path, stepUp: false, visit)
            } catch let refusal as AccountPageRefusal {
                return try await overviewPage(holder, visit, error: text(Self.explain(refusal), visit), section: section, status: .badRequest)
            } catch let error as LatchkeyError {
                var words = InteractionPages.words(for: error, settings: engine.settings.passwords) { text($0, visit) }
                if case .invalidAttributes(let names) = error { words += " " + names.joined(separator: ", ") }
                if case .lastWayIn = error { words = text("account_last_way_in", visit) }
                if case .invalidCredentials = error { words = text("account_wrong_password", visit) }
                return PageStatus.answer(try await overviewPage(holder, visit, error: words, section: section), for: error)
            }
        }
    }

    /// Back to the account page after a change, saying what was done (post, redirect, get: a reload repeats nothing).
    func done(_ key: String, section: String, _ visit: PageVisit) -> Response {
        redirect("\(SelfService.path)?done=\(key)#\(section)", visit)
    }

    /// The visit answering with the browser session's new cookie, when a change gave it one.
    func raised(_ visit: PageVisit, _ cookie: String?) -> PageVisit {
        guard let cookie else { return visit }
        var visit = visit
        visit.cookies.append(cookies.session(cookie))
        return visit
    }

    static func explain(_ refusal: AccountPageRefusal) -> String {
        switch refusal {
        case .signedOut: "expired"
        case .confirmationMismatch: "account_delete_mismatch"
        case .notFound: "account_not_found"
        case .badName: "account_bad_name"
        case .offerExpired: "account_offer_expired"
        }
    }
}
