import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The account page itself: every section, with the forms that change it.
extension AccountPage {
    func overviewPage(_ holder: AccountHolder, _ visit: PageVisit, notice: String? = nil, error: String? = nil,
                      section: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let view = try await engine.overview(holder)
        let user = view.user, settings = engine.settings
        let clients = Dictionary(settings.clients.map { ($0.id.lowercased(), $0.name) }, uniquingKeysWith: { first, _ in first })
        func clientName(_ id: String) -> String { clients[id.lowercased()] ?? id }
        var context: [String: Any] = [
            "email": user.email ?? "", "emailVerified": user.emailVerified, "username": user.username ?? "",
            "hasPassword": view.hasPassword, "minLength": settings.passwords.minLength,
            "passwordRule": text("password_rule", visit).replacingOccurrences(of: "{count}", with: String(settings.passwords.minLength)), "recent": view.recentSignIn,
            "stepUp": "/ui/account/sign-in?step_up=1&next=%2Fui%2Faccount",
            "attributes": settings.attributes.map { attribute -> [String: Any] in
                let value = user.attributes[attribute.name]
                var field: [String: Any] = ["name": attribute.name, "label": attribute.label(in: visit.language),
                                            "required": attribute.required && attribute.kind != .boolean]
                switch attribute.kind {
                case .string: field["inputType"] = "text"; field["value"] = value?.stringValue ?? ""
                case .number: field["inputType"] = "number"; field["value"] = Self.numberText(value)
                case .boolean: field["checkbox"] = true; field["checked"] = value == .bool(true)
                }
                return field
            },
            "hasAttributes": !settings.attributes.isEmpty,
            "passkeysOn": settings.passkeys.enabled,
            "passkeys": view.passkeys.map { passkey -> [String: Any] in
                ["id": passkey.id, "name": passkey.name, "created": Self.when(passkey.createdAt),
                 "lastUsed": passkey.lastUsedAt.map(Self.when) ?? text("account_never", visit),
                 "synced": passkey.backupEligible, "flagged": passkey.cloneFlaggedAt != nil]
            },
            "factors": view.factors.map { factor -> [String: Any] in
                ["kind": factor.kind.rawValue, "label": factorLabel(factor, visit), "added": Self.when(factor.createdAt)]
            },
            "hasAuthenticator": view.factors.contains { $0.kind == .totp }, "recoveryLeft": view.recoveryCodesLeft,
            "canAuthenticator": settings.mfa.methods.contains(.totp) && !view.factors.contains { $0.kind == .totp },
            "canEmailFactor": settings.mfa.methods.contains(.email), "canSMSFactor": settings.mfa.methods.contains(.sms),
            "identities": view.identities.map { ["provider": $0.provider, "label": InteractionPages.label($0.provider),
                                                 "linked": Self.when($0.createdAt)] },
            "linkable": view.linkable.map { ["provider": $0, "label": "\(text("continue_with", visit)) \(InteractionPages.label($0))"] },
            "browserSessions": view.browserSessions.map { session -> [String: Any] in
                ["id": session.id, "signedIn": Self.when(session.authTime), "ip": session.ip ?? "—",
                 "agent": session.userAgent.map(Self.shortAgent) ?? "—", "current": session.id == view.currentSessionId]
            },
            "appSessions": view.appSessions.map { session -> [String: Any] in
                // A native-kind session of a web app began at the provider's pages: the person knows it as a web app.
                let client = settings.clients.first { ClientApplication.sameID($0.id, session.audience) }
                let dialect = session.kind == .native && client?.isWebApp == true ? "openid" : session.kind.rawValue
                return ["id": session.familyId, "app": clientName(session.audience), "dialect": text("dialect_\(dialect)", visit),
                        "started": Self.when(session.startedAt), "lastUsed": Self.when(session.lastUsedAt), "ip": session.ip ?? "—",
                        "agent": session.userAgent.map(Self.shortAgent) ?? "—"]
            },
            "consents": view.consents.map { ["client": $0.clientId, "name": clientName($0.clientId), "scope": $0.scope,
                                             "granted": Self.when($0.grantedAt)] },
            "deleteWord": user.email ?? user.username ?? user.id,
        ]
        if let notice { context["notice"] = text(notice, visit) }
        if let error {
            // Beside the form that was sent (its field focused and tied to the words), else at the top.
            context["error"] = error
            if let section { context["errorIn"] = [section: true] } else { context["errorAtTop"] = true }
        }
        return render("account", status, context, visit)
    }

    func factorLabel(_ factor: SecondFactorRecord, _ visit: PageVisit) -> String {
        switch factor.kind {
        case .email: "\(text("code_to_email", visit)) \(EmailAddress.mask(factor.target ?? ""))"
        case .sms: "\(text("code_to_phone", visit)) \(SecondFactors.maskPhone(factor.target ?? ""))"
        case .totp: text("authenticator", visit)
        case .recovery: text("account_recovery_codes", visit)
        }
    }

    static func when(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(dateSeparator: .dash, dateTimeSeparator: .space, timeZone: .gmt).year().month().day()
            .time(includingFractionalSeconds: false)) + " UTC"
    }

    static func numberText(_ value: JSONValue?) -> String {
        switch value {
        case .int(let number)?: String(number)
        case .double(let number)?: number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        default: ""
        }
    }

    /// A user agent as a person recognises it: the browser and the system, not the whole header.
    static func shortAgent(_ agent: String) -> String {
        let browsers = ["Edg/": "Edge", "Firefox/": "Firefox", "Chrome/": "Chrome", "Safari/": "Safari", "curl/": "curl",
                        "python-requests": "Python"]
        let systems = ["Android": "Android", "iPhone": "iOS", "iPad": "iPadOS", "Mac OS X": "macOS", "Windows": "Windows", "Linux": "Linux"]
        let browser = ["Edg/", "Firefox/", "Chrome/", "Safari/", "curl/", "python-requests"].first { agent.contains($0) }.flatMap { browsers[$0] }
        let system = ["Android", "iPhone", "iPad", "Mac OS X", "Windows", "Linux"].first { agent.contains($0) }.flatMap { systems[$0] }
        let parts = [browser, system].compactMap { $0 }
        return parts.isEmpty ? String(agent.prefix(40)) : parts.joined(separator: " · ")
    }
}
