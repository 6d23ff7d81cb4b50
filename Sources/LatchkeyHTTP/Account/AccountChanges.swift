import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The account page's forms for the profile, the address, the password, passkeys, linked sign-ins, sessions,
/// consents and deleting the account.
extension AccountPage {
    func addChangeRoutes(to router: Router<LatchkeyRequestContext>) {
        post(router, "/ui/account/profile", section: "profile") { visit, holder in
            var attributes: [String: JSONValue] = [:]
            for attribute in engine.settings.attributes {
                let value = visit.field("attr.\(attribute.name)")
                switch attribute.kind {
                case .boolean: attributes[attribute.name] = .bool(value.map { ["true", "on", "yes", "1"].contains($0.lowercased()) } ?? false)
                case .string: if let value { attributes[attribute.name] = .string(value) }
                case .number: if let value { attributes[attribute.name] = Double(value).map(JSONValue.double) ?? .string(value) }
                }
            }
            try await engine.updateProfile(holder, attributes: attributes, caller: visit.caller)
            return done("profile", section: "profile", visit)
        }
        post(router, "/ui/account/email", section: "email") { visit, holder in
            let email = try await engine.startAddressChange(holder, newEmail: visit.field("email"), currentPassword: visit.field("current_password"),
                                                        caller: visit.caller)
            return codePage(action: "/ui/account/email/code", target: email, shown: EmailAddress.mask(email), kind: nil, visit)
        }
        post(router, "/ui/account/email/code", section: "email") { visit, holder in
            do {
                try await engine.finishAddressChange(holder, newEmail: visit.field("target"), code: visit.field("code"), caller: visit.caller)
            } catch let error as LatchkeyError where InteractionPages.isWrongCode(error) {
                return codePage(action: "/ui/account/email/code", target: visit.field("target") ?? "", shown: EmailAddress.mask(visit.field("target") ?? ""),
                                kind: nil, visit, error: text("wrong_code", visit))
            }
            return done("email", section: "email", visit)
        }
        post(router, "/ui/account/password", section: "password") { visit, holder in
            let cookie = try await engine.changePassword(holder, current: visit.field("current_password"), new: visit.field("password"),
                                                         caller: visit.caller)
            return done("password", section: "password", raised(visit, cookie))
        }
        post(router, "/ui/account/passkeys/rename", section: "passkeys") { visit, holder in
            try await engine.renamePasskey(holder, id: visit.field("id") ?? "", name: visit.field("name"), caller: visit.caller)
            return done("passkey_renamed", section: "passkeys", visit)
        }
        post(router, "/ui/account/passkeys/clear-flag", section: "passkeys") { visit, holder in
            try await engine.clearPasskeyFlag(holder, id: visit.field("id") ?? "", caller: visit.caller)
            return done("passkey_flag_cleared", section: "passkeys", visit)
        }
        post(router, "/ui/account/passkeys/remove", section: "passkeys") { visit, holder in
            try await engine.removePasskey(holder, id: visit.field("id") ?? "", caller: visit.caller)
            return done("passkey_removed", section: "passkeys", visit)
        }
        post(router, "/ui/account/identities/link", section: "identities") { visit, holder in
            let (redirect, sealed) = try await engine.beginLink(holder, provider: visit.field("provider") ?? "")
            var visit = visit
            visit.cookies.append(cookies.upstream(sealed, maxAge: engine.settings.openID.interactionTTLSeconds))
            return self.redirect(redirect, visit)
        }
        post(router, "/ui/account/identities/unlink", section: "identities") { visit, holder in
            try await engine.unlink(holder, provider: visit.field("provider") ?? "", caller: visit.caller)
            return done("unlinked", section: "identities", visit)
        }
        post(router, "/ui/account/sessions/end", section: "sessions") { visit, holder in
            try await engine.endBrowserSession(holder, id: visit.field("id") ?? "", caller: visit.caller)
            guard visit.field("id") != holder.session.id else { return message("signed_out", visit, status: .ok) }
            return done("session_ended", section: "sessions", visit)
        }
        post(router, "/ui/account/apps/end", section: "sessions") { visit, holder in
            try await engine.endAppSession(holder, familyId: visit.field("id") ?? "", caller: visit.caller)
            return done("session_ended", section: "sessions", visit)
        }
        post(router, "/ui/account/sessions/end-others", section: "sessions") { visit, holder in
            try await engine.endOtherSessions(holder, caller: visit.caller)
            return done("others_ended", section: "sessions", visit)
        }
        post(router, "/ui/account/consents/withdraw", section: "apps") { visit, holder in
            try await engine.withdrawConsent(holder, clientId: visit.field("client") ?? "", caller: visit.caller)
            return done("consent_withdrawn", section: "apps", visit)
        }
        post(router, "/ui/account/delete", section: "delete") { visit, holder in
            try await engine.deleteAccount(holder, typed: visit.field("confirm"), caller: visit.caller)
            var visit = visit
            visit.cookies.append(cookies.clear(cookies.sessionName))
            return message("account_deleted", visit, status: .ok)
        }
    }

    /// The page that asks for a code sent to a new address or number (`kind` nil: the account's own address).
    func codePage(action: String, target: String, shown: String, kind: String?, _ visit: PageVisit, error: String? = nil) -> Response {
        var context: [String: Any] = ["action": action, "target": target, "shown": shown]
        if let kind { context["kind"] = kind }
        if let error { context["error"] = error }
        return render("account_code", error == nil ? .ok : .badRequest, context, visit)
    }

    /// The issuer's answer to a link begun at the account page (the pages' upstream callback hands it here).
    func finishLink(_ request: Request, _ context: LatchkeyRequestContext, _ upstream: UpstreamVisit, callback: String?, iss: String?,
                    state: String?, code: String?, error: String?) async -> Response {
        var visit = visit(request, context)
        visit.cookies.append(cookies.clear(cookies.upstreamName))
        do {
            guard let holder = try await engine.holder(cookie: visit.sessionCookie) else { return signIn(next: SelfService.path, stepUp: false, visit) }
            do {
                try await engine.finishLink(holder, visit: upstream, callback: callback, iss: iss, state: state, code: code, error: error,
                                            caller: visit.caller)
                return done("linked", section: "identities", visit)
            } catch let error as LatchkeyError {
                let key = if case .identityTaken = error { "account_identity_taken" } else { InteractionPages.explain(error) }
                return PageStatus.answer(try await overviewPage(holder, visit, error: text(key, visit)), for: error)
            } catch AccountPageRefusal.signedOut {
                return signIn(next: SelfService.path, stepUp: false, visit)
            }
        } catch {
            return message("not_possible", visit, status: .internalServerError)
        }
    }
}
