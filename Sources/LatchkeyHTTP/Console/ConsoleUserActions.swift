import Foundation
import Hummingbird
import LatchkeyCore

/// What an operator can do to an account from its page: each is a form post with the session's CSRF token, runs
/// the admin API's engine call under the operator's name (which finds the account by the path's key itself), and
/// goes back to the page saying what was done.
extension Console {
    func addUserActionRoutes(to console: RouterGroup<LatchkeyRequestContext>) {
        let actions: [(String, @Sendable (any OperatorSurface, String, CallerInfo) async throws -> Void)] = [
            ("disable", { _ = try await $0.adminSetDisabled($1, disabled: true, caller: $2) }),
            ("enable", { _ = try await $0.adminSetDisabled($1, disabled: false, caller: $2) }),
            ("unlock", { _ = try await $0.adminUnlock($1, caller: $2) }),
            ("revoke-sessions", { try await $0.adminRevokeSessions($1, caller: $2) }),
            ("verify-email", { _ = try await $0.adminVerifyEmail($1, caller: $2) }),
            ("send-password-reset", { try await $0.adminSendPasswordReset($1, caller: $2) }),
            ("reset-second-factors", { _ = try await $0.adminResetSecondFactors($1, caller: $2) }),
            ("grant-operator", { try await $0.adminGrantRole($1, role: UserRole.operatorRole, caller: $2) }),
            ("revoke-operator", { try await $0.adminRevokeRole($1, role: UserRole.operatorRole, caller: $2) }),
        ]
        for (name, action) in actions {
            console.post("/users/:user/\(name)") { request, context in
                let (visit, _) = try await self.post(request, context)
                let user = try context.parameters.requireUser()
                try await action(self.engine, user, visit.caller)
                return self.redirect(Self.userPage(user), visit, done: name.replacingOccurrences(of: "-", with: "_"))
            }
        }
        console.post("/users/:user/delete") { request, context in
            let (visit, form) = try await self.post(request, context)
            let user = try await self.engine.adminFindUser(try context.parameters.requireUser())
            // Typed, not clicked: the account's email (or id, when it has none) exactly.
            guard let typed = form["confirm"]?.trimmingCharacters(in: .whitespaces), typed == (user.email ?? user.id) else {
                throw ConsoleBadInput(message: "error_confirm_delete")
            }
            try await self.engine.adminDeleteUser(user.id, caller: visit.caller)
            return self.redirect("/console/users", visit, done: "deleted")
        }
        console.post("/users/:user/identities/:provider/unlink") { request, context in
            let (visit, _) = try await self.post(request, context)
            let user = try context.parameters.requireUser()
            try await self.engine.adminUnlink(user, provider: try context.parameters.require("provider"), caller: visit.caller)
            return self.redirect(Self.userPage(user), visit, done: "unlinked")
        }
        console.post("/users/:user/passkeys/:id/clear-flag") { request, context in
            let (visit, _) = try await self.post(request, context)
            let user = try context.parameters.requireUser()
            try await self.engine.adminClearPasskeyFlag(user, id: try context.parameters.require("id"), caller: visit.caller)
            return self.redirect(Self.userPage(user), visit, done: "passkey_flag_cleared")
        }
        console.post("/users/:user/passkeys/:id/remove") { request, context in
            let (visit, _) = try await self.post(request, context)
            let user = try context.parameters.requireUser()
            try await self.engine.adminRemovePasskey(user, id: try context.parameters.require("id"), caller: visit.caller)
            return self.redirect(Self.userPage(user), visit, done: "passkey_removed")
        }
        console.post("/users/:user/browser-sessions/:id/end") { request, context in
            let (visit, _) = try await self.post(request, context)
            let user = try context.parameters.requireUser()
            try await self.engine.adminEndBrowserSession(user, sessionId: try context.parameters.require("id"), caller: visit.caller)
            return self.redirect(Self.userPage(user), visit, done: "session_ended")
        }
        console.post("/users/:user/consents/:client/revoke") { request, context in
            let (visit, _) = try await self.post(request, context)
            let user = try context.parameters.requireUser()
            try await self.engine.adminRevokeConsent(user, clientId: try context.parameters.require("client"), caller: visit.caller)
            return self.redirect(Self.userPage(user), visit, done: "consent_revoked")
        }
    }

    /// The account's page, by the key the form posted to (its id, from the page's own links).
    static func userPage(_ key: String) -> String { "/console/users/" + ConsoleErrors.escape(key) }
}
