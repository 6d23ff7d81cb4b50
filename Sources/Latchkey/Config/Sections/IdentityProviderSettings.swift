import Foundation
import LatchkeyCore

/// `identities.*`: the OpenID issuers whose ID tokens sign users in (Apple and Google built in, any other by its
/// issuer and keys), and whether a first sign-in joins the account with the same verified address.
struct IdentityProviderSettings: ConfigSection {
    static let section = "identities"
    static let keys = ["link_by_verified_email"]
    static let lists = ["providers"]

    var settings = IdentitySettings()

    struct Entry: Decodable {
        var issuer: String?
        var jwksURL: String?
        var audiences: [String]?
        var trustEmail: Bool?
        var caFile: String?

        init(from decoder: any Decoder) throws {
            let entry = try decoder.entryKeys(known: ["issuer", "jwks_url", "audiences", "trust_email", "ca_file"])
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
    }

    private static func issuer(_ name: String, _ entry: Entry, key: String, folder: String?) throws -> OpenIDIssuer {
        guard name.range(of: "^[a-z][a-z0-9_-]{0,31}$", options: .regularExpression) != nil, name != VerifiedIdentity.anonymousProvider else {
            throw ConfigError(key: key, message: "a provider's name is 1 to 32 lowercase letters, digits, - and _, and not anonymous")
        }
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
        guard let url = URL(string: jwksURL), let host = url.host, url.scheme == "https" || (url.scheme == "http" && Self.isLoopback(host)) else {
            throw ConfigError(key: "\(key).jwks_url", message: "must be an https URL (http only for a loopback host)")
        }
        var caFile = entry.caFile
        if let file = caFile, !file.hasPrefix("/"), let folder { caFile = (folder as NSString).appendingPathComponent(file) }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigError(key: "\(key).ca_file", message: "cannot read \(caFile)")
        }
        // Apple and Google verify the addresses they put in tokens; another issuer is trusted only when configured so.
        return OpenIDIssuer(name: name, issuers: issuers, jwksURL: jwksURL, audiences: audiences,
                            trustsEmail: entry.trustEmail ?? (builtIn != nil), caFile: caFile)
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
