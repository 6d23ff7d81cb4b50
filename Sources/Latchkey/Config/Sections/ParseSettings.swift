import Foundation
import LatchkeyCore

/// `parse.*`: the Parse dialect's mount path, who may use a master key, session lifetime and apps.
struct ParseSettings: ConfigSection {
    static let section = "parse"
    static let keys = ["mount", "master_key_ips", "session_ttl_seconds", "max_custom_fields", "max_custom_field_bytes"]
    static let lists = ["apps"]
    /// Paths the other dialects own; the mount may not shadow them.
    static let takenPaths = ["/oauth2", "/signup", "/signin", "/resetpassword", "/api", "/oidc", "/discovery", "/.well-known",
                             "/health", "/testing", "/confirm", "/reset-password", "/mfa", "/register"]

    var mount: String
    var masterKeyIPs: [String]
    var sessionTTLSeconds: Int
    var apps: [ParseApp] = []
    var fieldLimits = FieldLimits()

    struct Entry: Decodable {
        var id: String
        var clientKey: String?
        var masterKey: String?
        var masterKeyFile: String?
        var verifyUserEmails: Bool?
        var preventLoginWithUnverifiedEmail: Bool?
        var cloudFunctions: [String]?
        var auth: [String]?
        var mfa: String?

        init(from decoder: any Decoder) throws {
            let entry = try decoder.entryKeys(known: ["id", "client_key", "master_key", "master_key_file", "verify_user_emails",
                                                      "prevent_login_with_unverified_email", "cloud_functions", "auth", "mfa"])
            id = try entry.required("id")
            clientKey = try entry.optional("client_key")
            masterKey = try entry.optional("master_key")
            masterKeyFile = try entry.optional("master_key_file")
            verifyUserEmails = try entry.optional("verify_user_emails")
            preventLoginWithUnverifiedEmail = try entry.optional("prevent_login_with_unverified_email")
            cloudFunctions = try entry.optional("cloud_functions")
            auth = try entry.optional("auth")
            mfa = try entry.optional("mfa")
        }
    }

    init(_ config: SectionReader, functions: Set<String>, identityProviders: Set<String>) throws {
        var path = try config.string("mount", default: "/parse")
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        guard path.hasPrefix("/"), path.count > 1, !path.contains("?"), !path.contains("#"), !path.contains(" "),
              !Self.takenPaths.contains(where: { path == $0 || path.hasPrefix($0 + "/") || $0.hasPrefix(path + "/") }) else {
            throw config.error("mount", "must be a path like /parse that no other dialect uses")
        }
        mount = path
        masterKeyIPs = try config.stringList("master_key_ips", default: ["127.0.0.1", "::1"])
        for (index, ip) in masterKeyIPs.enumerated() where !IPAddressText.isValid(ip) {
            throw ConfigError(key: "\(config.key("master_key_ips"))[\(index)]", message: "must be an IP address (got \(ip))")
        }
        sessionTTLSeconds = try config.int("session_ttl_seconds", default: 31_536_000, range: 60...315_360_000)
        fieldLimits.count = try config.int("max_custom_fields", default: fieldLimits.count, range: 1...1000)
        fieldLimits.bytes = try config.int("max_custom_field_bytes", default: fieldLimits.bytes, range: 256...1_048_576)
        var seen = Set<String>()
        for (index, entry) in (try config.list("apps", of: [Entry].self) ?? []).enumerated() {
            let key = "\(config.key("apps"))[\(index)]"
            guard !entry.id.isEmpty else { throw ConfigError(key: "\(key).id", message: "is required") }
            guard seen.insert(entry.id).inserted else { throw ConfigError(key: "\(key).id", message: "is listed twice") }
            var app = ParseApp(id: entry.id, clientKey: entry.clientKey.flatMap { $0.isEmpty ? nil : $0 })
            app.masterKey = try Self.masterKey(entry, key: key, folder: config.source.fileDirectory)
            app.verifyUserEmails = entry.verifyUserEmails ?? false
            app.preventLoginWithUnverifiedEmail = entry.preventLoginWithUnverifiedEmail ?? false
            app.cloudFunctions = entry.cloudFunctions ?? []
            app.mfa = try MFASettings.policy(entry.mfa, key: "\(key).mfa")
            if let unknown = app.cloudFunctions.first(where: { !functions.contains($0) }) {
                throw ConfigError(key: "\(key).cloud_functions", message: "\(unknown) is not declared under functions:")
            }
            if let auth = entry.auth {
                let known = identityProviders.union([VerifiedIdentity.anonymousProvider])
                if let unknown = auth.first(where: { !known.contains($0) }) {
                    throw ConfigError(key: "\(key).auth", message: "\(unknown) is neither anonymous nor a provider under identities.providers")
                }
                app.authProviders = Set(auth)
            }
            apps.append(app)
        }
    }

    /// `master_key`, or the first line of `master_key_file` (kept out of the configuration); at least 16 characters.
    private static func masterKey(_ entry: Entry, key: String, folder: String?) throws -> String? {
        if entry.masterKey?.isEmpty == false, entry.masterKeyFile?.isEmpty == false {
            throw ConfigError(key: "\(key).master_key_file", message: "master_key and master_key_file go one at a time")
        }
        var secret = entry.masterKey ?? ""
        if let file = entry.masterKeyFile, !file.isEmpty {
            let path = EntryFiles.path(file, folder: folder)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ConfigError(key: "\(key).master_key_file", message: "cannot read \(path)")
            }
            secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard !secret.isEmpty else { return nil }
        guard secret.count >= 16 else { throw ConfigError(key: "\(key).master_key", message: "must be at least 16 characters") }
        return secret
    }
}
