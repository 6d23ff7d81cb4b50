import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The account page's forms for the profile, the address, the password, passkeys, linked sign-ins, sessions,
/// consents and deleting the account.
extension AccountPage {
    /// The account page's change forms: path, the section the page returns to, the handler.
    var changeForms: [(path: String, section: String, handler: AccountForm)] {
        [
            ("/ui/account/profile", "profile", updateProfile),
            ("/ui/account/email", "email", startAddressChange),
            ("/ui/account/email/code", "email", finishAddressChange),
            ("/ui/account/password", "password", changePassword),
            ("/ui/account/passkeys/rename", "passkeys", renamePasskey),
            ("/ui/account/passkeys/clear-flag", "passkeys", clearPasskeyFlag),
            ("/ui/account/passkeys/remove", "passkeys", removePasskey),
            ("/ui/account/identities/link", "identities", beginLink),
            ("/ui/account/identities/unlink", "identities", unlink),
            ("/ui/account/sessions/end", "sessions", endBrowserSession),
            ("/ui/account/apps/end", "sessions", endAppSession),
            ("/ui/account/sessions/end-others", "sessions", endOtherSessions),
            ("/ui/account/consents/withdraw", "apps", withdrawConsent),
            ("/ui/account/delete", "delete", deleteAccount),
        ]
    }

    func addChangeRoutes(to router: Router<LatchkeyRequestContext>) {
        for form in changeForms { post(router, form.path, section: form.section, form.handler) }
    }

    private func updateProfile(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
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

    private func startAddressChange(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
        let email = try await engine.startAddressChange(holder, newEmail: visit.field("email"), currentPassword: visit.field("current_password"),
                                                    caller: visit.caller)
        return codePage(action: "/ui/account/email/code", target: email, shown: EmailAddress.mask(email), kind: nil, visit)
    }

    private func finishAddressChange(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
        do {
            try await engine.finishAddressChange(holder, newEmail: visit.field("target"), code: visit.field("code"), caller: visit.caller)
        } catch let error as LatchkeyError where InteractionPages.isWrongCode(error) {
            return codePage(action: "/ui/account/email/code", target: visit.field("target") ?? "", shown: EmailAddress.mask(visit.field("target") ?? ""),
                            kind: nil, visit, error: text("wrong_code", visit))
        }
        return done("email", section: "email", visit)
    }

    private func changePassword(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
        let cookie = try await engine.changePassword(holder, current: visit.field("current_password"), new: visit.field("password"),
                                                     caller: visit.caller)
        return done("password", section: "password", raised(visit, cookie))
    }

    private func renamePasskey(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
        try await engine.renamePasskey(holder, id: visit.field("id") ?? "", name: visit.field("name"), caller: visit.caller)
        return done("passkey_renamed", section: "passkeys", visit)
    }

    private func clearPasskeyFlag(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
        try await engine.clearPasskeyFlag(holder, id: visit.field("id") ?? "", caller: visit.caller)
        return done("passkey_flag_cleared", section: "passkeys", visit)
    }

    private func removePasskey(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
        try await engine.removePasskey(holder, id: visit.field("id") ?? "", caller: visit.caller)
        return done("passkey_removed", section: "passkeys", visit)
    }

    private func beginLink(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
        let (redirect, sealed) = try await engine.beginLink(holder, provider: visit.field("provider") ?? "")
        var visit = visit
        visit.cookies.append(cookies.upstream(sealed, maxAge: engine.settings.openID.interactionTTLSeconds))
        return self.redirect(redirect, visit)
    }

    private func unlink(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
        try await engine.unlink(holder, provider: visit.field("provider") ?? "", caller: visit.caller)
        return done("unlinked", section: "identities", visit)
    }

    private func endBrowserSession(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
        try await engine.endBrowserSession(holder, id: visit.field("id") ?? "", caller: visit.caller)
        guard visit.field("id") != holder.session.id else { return message("signed_out", visit, status: .ok) }
        return done("session_ended", section: "sessions", visit)
    }

    private func endAppSession(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
        try await engine.endAppSession(holder, familyId: visit.field("id") ?? "", caller: visit.caller)
        return done("session_ended", section: "sessions", visit)
    }

    private func endOtherSessions(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
        try await engine.endOtherSessions(holder, caller: visit.caller)
        return done("others_ended", section: "sessions", visit)
    }

    private func withdrawConsent(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
        try await engine.withdrawConsent(holder, clientId: visit.field("client") ?? "", caller: visit.caller)
        return done("consent_withdrawn", section: "apps", visit)
    }

    private func deleteAccount(_ visit: PageVisit, _ holder: AccountHolder) async throws -> Response {
        try await engine.deleteAccount(holder, typed: visit.field("confirm"), caller: visit.caller)
        var visit = visit
        visit.cookies.append(cookies.clear(cookies.sessionName))
        return message("account_deleted", visit, status: .ok)
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
                return PageStatus.answer(try await overviewPage(holder, visit, error: text(key, visit), section: "identities"), for: error)
            } catch AccountPageRefusal.signedOut {
                return signIn(next: SelfService.path, stepUp: false, visit)
            }
        } catch {
            return message("not_possible", visit, status: .internalServerError)
        }
    }
}
