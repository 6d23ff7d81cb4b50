import Foundation
import LatchkeyCore

/// `identities.*`: the OpenID issuers whose ID tokens sign users in (Apple and Google built in, any other by its
/// issuer and keys), and whether a first sign-in joins the account with the same verified address.
struct IdentityProviderSettings: ConfigSection {
    static let section = "identities"
    static let keys = ["link_by_verified_email"]
    static let lists = ["providers", "custom_jwt"]

    var settings = IdentitySettings()

    struct Entry: Decodable {
        var issuer: String?
        var jwksURL: String?
        var audiences: [String]?
        var trustEmail: Bool?
        var caFile: String?
        var clientId: String?
        var clientSecretFile: String?
        var tokenURL: String?
        var redirectURI: String?
        var authorizationURL: String?

        init(from decoder: any Decoder) throws {
            let entry = try decoder.entryKeys(known: ["issuer", "jwks_url", "audiences", "trust_email", "ca_file", "client_id",
                                                      "client_secret_file", "token_url", "redirect_uri", "authorization_url"])
            authorizationURL = try entry.optional("authorization_url")
            clientId = try entry.optional("client_id")
            clientSecretFile = try entry.optional("client_secret_file")
            tokenURL = try entry.optional("token_url")
            redirectURI = try entry.optional("redirect_uri")
            issuer = try entry.optional("issuer")
            jwksURL = try entry.optional("jwks_url")
            audiences = try entry.optional("audiences")
            trustEmail = try entry.optional("trust_email")
            caFile = try entry.optional("ca_file")
        }
    }

    init(_ config: SectionReader) throws {
        settings.linkByVerifiedEmail = try config.bool("link_by_verified_email", default: false)
        for (name, entry) in (try config.list("providers", of: [String: Entry].self) ?? [:]).sorted(by: { $0.key < $1.key }) {
            settings.providers[name] = try Self.issuer(name, entry, key: "\(config.key("providers")).\(name)",
                                                       folder: config.source.fileDirectory)
        }
        for (name, entry) in (try config.list("custom_jwt", of: [String: CustomJWTEntry].self) ?? [:]).sorted(by: { $0.key < $1.key }) {
            let key = "\(config.key("custom_jwt")).\(name)"
            guard settings.providers[name] == nil else { throw ConfigError(key: key, message: "\(name) is also under identities.providers") }
            settings.customJWT[name] = try entry.issuer(name, key: key, folder: config.source.fileDirectory)
        }
    }

    /// Names the engine keeps for its own identities.
    static let reservedNames: Set<String> = [VerifiedIdentity.anonymousProvider, "api-key", "custom-function", "password", "email"]

    static func checkName(_ name: String, key: String) throws {
        guard name.range(of: "^[a-z][a-z0-9_-]{0,31}$", options: .regularExpression) != nil, !reservedNames.contains(name) else {
            throw ConfigError(key: key, message: "a provider's name is 1 to 32 lowercase letters, digits, - and _, and not one of "
                              + reservedNames.sorted().joined(separator: ", "))
        }
    }

    private static func issuer(_ name: String, _ entry: Entry, key: String, folder: String?) throws -> OpenIDIssuer {
        try checkName(name, key: key)
        let builtIn = OpenIDIssuer.builtIn(name)
        guard let audiences = entry.audiences, !audiences.isEmpty, !audiences.contains(where: \.isEmpty) else {
            throw ConfigError(key: "\(key).audiences", message: "is required: the client ids tokens must be issued to")
        }
        let issuers = entry.issuer.map { [$0] } ?? builtIn?.issuers
        guard let issuers, !issuers.contains(where: \.isEmpty) else {
            throw ConfigError(key: "\(key).issuer", message: "is required for a provider other than apple and google")
        }
        guard let jwksURL = entry.jwksURL ?? builtIn?.jwksURL else {
            throw ConfigError(key: "\(key).jwks_url", message: "is required for a provider other than apple and google")
        }
        try checkKeySetURL(jwksURL, key: "\(key).jwks_url")
        let caFile = try EntryFiles.readable(entry.caFile, key: "\(key).ca_file", folder: folder)
        // Apple and Google verify the addresses they put in tokens; another issuer is trusted only when configured so.
        var issuer = OpenIDIssuer(name: name, issuers: issuers, jwksURL: jwksURL, audiences: audiences,
                                  trustsEmail: entry.trustEmail ?? (builtIn != nil), caFile: caFile)
        if let secret = try EntryFiles.secret(entry.clientSecretFile, key: "\(key).client_secret_file", folder: folder) {
            guard !secret.isEmpty else { throw ConfigError(key: "\(key).client_secret_file", message: "is empty") }
            guard let tokenURL = entry.tokenURL ?? (name == "google" ? "https://oauth2.googleapis.com/token" : nil) else {
                throw ConfigError(key: "\(key).token_url", message: "is required with a client secret for a provider other than google")
            }
            try checkKeySetURL(tokenURL, key: "\(key).token_url")
            issuer.codeExchange = CodeExchange(tokenURL: tokenURL, clientId: entry.clientId ?? audiences[0], clientSecret: secret,
                                               redirectURI: entry.redirectURI)
        }
        // The hosted sign-in page's "continue with" button: the issuer's own authorization endpoint.
        if let url = entry.authorizationURL ?? OpenIDIssuer.builtInAuthorizationURL(name) {
            try checkKeySetURL(url, key: "\(key).authorization_url")
            issuer.authorizationURL = url
        }
        return issuer
    }

    static func checkKeySetURL(_ text: String, key: String) throws {
        guard let url = URL(string: text), let host = url.host, url.scheme == "https" || (url.scheme == "http" && isLoopback(host)) else {
            throw ConfigError(key: key, message: "must be an https URL (http only for a loopback host)")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
