import Foundation
import LatchkeyCore

/// `resources`: the operator's APIs that access tokens may be asked for (RFC 8707), each `{url, scopes,
/// access_token_seconds, first_party_consent}`. A token asked for one has its URL as its only `aud`.
enum ResourceList: ConfigSection {
    static let section = ""
    static let keys: [String] = []
    static let lists = ["resources"]

    struct Entry: Decodable {
        var url: String
        var scopes: [String]?
        var accessTokenSeconds: Int?
        var firstPartyConsent: Bool?

        init(from decoder: any Decoder) throws {
            let entry = try decoder.entryKeys(known: ["url", "scopes", "access_token_seconds", "first_party_consent"])
            url = try entry.required("url")
            scopes = try entry.optional("scopes")
            accessTokenSeconds = try entry.optional("access_token_seconds")
            firstPartyConsent = try entry.optional("first_party_consent")
        }
    }

    static func read(_ config: SectionReader) throws -> [ProtectedResource] {
        guard let entries = try config.list("resources", of: [Entry].self) else { return [] }
        var seen = Set<String>()
        return try entries.enumerated().map { index, entry in
            let key = "resources[\(index)]"
            if let problem = ProtectedResource.identifierProblem(entry.url) { throw ConfigError(key: "\(key).url", message: problem) }
            guard seen.insert(entry.url).inserted else { throw ConfigError(key: "\(key).url", message: "is listed twice") }
            let scopes = entry.scopes ?? []
            guard scopes.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else {
                throw ConfigError(key: "\(key).scopes", message: "must be a list of scope names")
            }
            if let seconds = entry.accessTokenSeconds, !(60...86_400).contains(seconds) {
                throw ConfigError(key: "\(key).access_token_seconds", message: "must be between 60 and 86400")
            }
            return ProtectedResource(uri: entry.url, scopes: scopes, accessTTLSeconds: entry.accessTokenSeconds,
                                     firstPartyConsent: entry.firstPartyConsent ?? true)
        }
    }
}
