import Foundation
import LatchkeyCore

/// `clients`: the applications allowed to sign users in, each `{id, name, scopes, mfa}`; those that sign in through
/// the browser (the OpenID provider) add `redirect_uris`, `post_logout_redirect_uris`, `secret_file` (present:
/// confidential) and `first_party` (`false`: users are asked for consent).
enum ClientList: ConfigSection {
    static let section = ""
    static let keys: [String] = []
    static let lists = ["clients"]
    static let devClient = ClientApplication(id: "11111111-1111-1111-1111-111111111111", name: "dev")

    struct Entry: Decodable {
        var id: String
        var name: String?
        var scopes: [String]?
        var mfa: String?
        var redirectURIs: [String]?
        var postLogoutRedirectURIs: [String]?
        var secretFile: String?
        var firstParty: Bool?
        var grantTypes: [String]?

        init(from decoder: any Decoder) throws {
            let entry = try decoder.entryKeys(known: ["id", "name", "scopes", "mfa", "redirect_uris", "post_logout_redirect_uris",
                                                      "secret_file", "first_party", "grant_types"])
            grantTypes = try entry.optional("grant_types")
            id = try entry.required("id")
            name = try entry.optional("name")
            scopes = try entry.optional("scopes")
            mfa = try entry.optional("mfa")
            redirectURIs = try entry.optional("redirect_uris")
            postLogoutRedirectURIs = try entry.optional("post_logout_redirect_uris")
            secretFile = try entry.optional("secret_file")
            firstParty = try entry.optional("first_party")
        }
    }

    /// The configured clients, or the development client when the list is not set.
    static func read(_ config: SectionReader) throws -> [ClientApplication] {
        guard let entries = try config.list("clients", of: [Entry].self) else { return [devClient] }
        var seen = Set<String>()
        return try entries.enumerated().map { index, entry in
            let key = "clients[\(index)]"
            guard !entry.id.isEmpty else { throw ConfigError(key: "\(key).id", message: "is required") }
            guard seen.insert(entry.id.lowercased()).inserted else { throw ConfigError(key: "\(key).id", message: "is listed twice") }
            let scopes = entry.scopes ?? []
            guard scopes.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else {
                throw ConfigError(key: "\(key).scopes", message: "must be a list of scope names")
            }
            var secretDigest: [UInt8]?
            if let secret = try EntryFiles.secret(entry.secretFile, key: "\(key).secret_file", folder: config.source.fileDirectory) {
                guard secret.utf8.count >= 32 else {
                    throw ConfigError(key: "\(key).secret_file", message: "must hold a secret of at least 32 characters (openssl rand -hex 32)")
                }
                secretDigest = Digest.sha256(Array(secret.utf8))
            }
            return ClientApplication(id: entry.id, name: entry.name ?? entry.id, scopes: scopes,
                                     mfa: try MFASettings.policy(entry.mfa, key: "\(key).mfa"),
                                     redirectURIs: try redirectURIs(entry.redirectURIs, key: "\(key).redirect_uris"),
                                     postLogoutRedirectURIs: try redirectURIs(entry.postLogoutRedirectURIs, key: "\(key).post_logout_redirect_uris"),
                                     secretDigest: secretDigest, firstParty: entry.firstParty ?? true,
                                     grantTypes: try grantTypes(entry, key: "\(key).grant_types"))
        }
    }

    /// The listed grants, checked: known names, and none a third-party client may not have; nil: the defaults.
    static func grantTypes(_ entry: Entry, key: String) throws -> Set<GrantType>? {
        guard let names = entry.grantTypes else { return nil }
        let grants = try Set(names.map { name in
            guard let grant = GrantType(name: name) else {
                throw ConfigError(key: key, message: "\(name) is not one of \(GrantType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return grant
        })
        if entry.firstParty == false, let refused = grants.intersection(GrantType.firstPartyOnly).first {
            throw ConfigError(key: key, message: "a third-party client (first_party: false) never gets the \(refused.rawValue) grant")
        }
        if grants.contains(.authorizationCode), entry.redirectURIs?.isEmpty ?? true {
            throw ConfigError(key: key, message: "authorization_code needs redirect_uris")
        }
        return grants
    }

    /// Absolute URIs without a fragment: `https`, `http` only to this machine (loopback), or an app's own scheme.
    static func redirectURIs(_ uris: [String]?, key: String) throws -> [String] {
        try (uris ?? []).map { uri in
            if let problem = ClientApplication.redirectURIProblem(uri) { throw ConfigError(key: key, message: problem) }
            return uri
        }
    }
}
