import Foundation
import LatchkeyCore

/// `app_services.*`: the App Services apps (how each confirms emails and resets passwords), link lifetime and pages.
struct AppServicesSettings: ConfigSection {
    static let section = "app_services"
    static let keys = ["link_ttl_seconds", "pages", "session_ttl_seconds", "anonymous_session_ttl_seconds"]
    static let lists = ["apps"]

    var apps: [AppServicesApp] = []
    var linkTTLSeconds: Int
    /// Refresh-token (session) lifetimes: 60 days, and five years for anonymous users.
    var sessionTTLSeconds: Int
    var anonymousSessionTTLSeconds: Int
    /// A folder replacing the hosted pages' templates (nil: the built-in ones).
    var pagesDirectory: String?

    struct Entry: Decodable {
        var id: String
        var confirmation: Link?
        var reset: Link?
        var providers: [String]?
        var customToken: String?
        var customFunction: String?
        var functions: [String]?

        init(from decoder: any Decoder) throws {
            let entry = try decoder.entryKeys(known: ["id", "confirmation", "reset", "providers", "custom_token", "custom_function", "functions"])
            functions = try entry.optional("functions")
            customToken = try entry.optional("custom_token")
            customFunction = try entry.optional("custom_function")
            id = try entry.required("id")
            confirmation = try entry.optional("confirmation")
            reset = try entry.optional("reset")
            providers = try entry.optional("providers")
        }
    }

    /// How one kind of link is handled: `{mode, url, function}`.
    struct Link: Decodable {
        var mode: String?
        var url: String?
        var function: String?

        init(from decoder: any Decoder) throws {
            let entry = try decoder.entryKeys(known: ["mode", "url", "function"])
            mode = try entry.optional("mode")
            url = try entry.optional("url")
            function = try entry.optional("function")
        }
    }

    /// The provider types an app may enable, and the issuer each ID-token type needs under `identities.providers`.
    static let providerTypes = ["local-userpass": nil, "anon-user": nil, "api-key": nil, "oauth2-apple": "apple", "oauth2-google": "google",
                                "custom-token": nil, "custom-function": nil]

    init(_ config: SectionReader, functions: Set<String>, identityProviders: Set<String>, customJWT: Set<String>) throws {
        linkTTLSeconds = try config.int("link_ttl_seconds", default: 1800, range: 1...86400)
        // The hosted service allows 30 minutes to five years.
        sessionTTLSeconds = try config.int("session_ttl_seconds", default: 5_184_000, range: 1800...157_680_000)
        anonymousSessionTTLSeconds = try config.int("anonymous_session_ttl_seconds", default: 157_680_000, range: 1800...157_680_000)
        pagesDirectory = try config.path("pages", default: nil)
        var seen = Set<String>()
        for (index, entry) in (try config.list("apps", of: [Entry].self) ?? []).enumerated() {
            let key = "\(config.key("apps"))[\(index)]"
            guard !entry.id.isEmpty else { throw ConfigError(key: "\(key).id", message: "is required") }
            guard seen.insert(entry.id).inserted else { throw ConfigError(key: "\(key).id", message: "is listed twice") }
            let confirmation = try Self.link(entry.confirmation, key: "\(key).confirmation", functions: functions)
            let reset = try Self.link(entry.reset, key: "\(key).reset", functions: functions)
            guard let confirmationMode = AppServicesApp.ConfirmationMode(rawValue: confirmation.mode) else {
                throw ConfigError(key: "\(key).confirmation.mode", message: "must be auto, email or function")
            }
            guard let resetMode = AppServicesApp.ResetMode(rawValue: reset.mode) else {
                throw ConfigError(key: "\(key).reset.mode", message: "must be email or function")
            }
            var app = AppServicesApp(id: entry.id, confirmation: confirmationMode, confirmationURL: confirmation.url, reset: resetMode,
                                     resetURL: reset.url)
            app.confirmationFunction = confirmationMode == .function ? confirmation.function : nil
            app.resetFunction = resetMode == .function ? reset.function : nil
            if let providers = entry.providers {
                for type in providers {
                    guard let issuer = Self.providerTypes[type] else {
                        throw ConfigError(key: "\(key).providers", message: "\(type) is not one of \(Self.providerTypes.keys.sorted().joined(separator: ", "))")
                    }
                    if let issuer, !identityProviders.contains(issuer) {
                        throw ConfigError(key: "\(key).providers", message: "\(type) needs identities.providers.\(issuer) with its audiences")
                    }
                }
                app.providers = Set(providers)
            }
            if app.providers.contains("custom-token") {
                guard let name = entry.customToken, customJWT.contains(name) else {
                    throw ConfigError(key: "\(key).custom_token", message: "custom-token needs the name of an identities.custom_jwt issuer")
                }
                app.customToken = name
            }
            if app.providers.contains("custom-function") {
                guard let name = entry.customFunction, functions.contains(name) else {
                    throw ConfigError(key: "\(key).custom_function", message: "custom-function needs the name of a function under functions:")
                }
                app.customFunction = name
            }
            app.functions = entry.functions ?? []
            if let unknown = app.functions.first(where: { !functions.contains($0) }) {
                throw ConfigError(key: "\(key).functions", message: "\(unknown) is not declared under functions:")
            }
            apps.append(app)
        }
    }

    /// The link's mode (default `email`), URL (empty: Latchkey's own page) and function, checked.
    private static func link(_ link: Link?, key: String, functions: Set<String>) throws -> (mode: String, url: String, function: String?) {
        let mode = link?.mode ?? "email"
        if mode == "function" {
            guard let function = link?.function, functions.contains(function) else {
                throw ConfigError(key: "\(key).function", message: "must name a function declared under functions:")
            }
        }
        let url = link?.url ?? ""
        if !url.isEmpty {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? "") else {
                throw ConfigError(key: "\(key).url", message: "must be an http(s) URL")
            }
        }
        return (mode, url, link?.function)
    }
}
