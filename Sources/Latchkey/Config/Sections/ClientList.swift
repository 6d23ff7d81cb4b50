import LatchkeyCore

/// `clients`: the applications allowed to call the native API, each `{id, name, scopes, mfa}`.
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

        init(from decoder: any Decoder) throws {
            let entry = try decoder.entryKeys(known: ["id", "name", "scopes", "mfa"])
            id = try entry.required("id")
            name = try entry.optional("name")
            scopes = try entry.optional("scopes")
            mfa = try entry.optional("mfa")
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
            return ClientApplication(id: entry.id, name: entry.name ?? entry.id, scopes: scopes,
                                     mfa: try MFASettings.policy(entry.mfa, key: "\(key).mfa"))
        }
    }
}
