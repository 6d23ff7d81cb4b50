import Foundation

/// `functions`: the operator's functions by name, each a signed webhook or a local command.
enum FunctionDefinition: Equatable {
    case webhook(url: String, secret: String, timeoutSeconds: Int)
    case command(argv: [String], timeoutSeconds: Int)
}

enum FunctionDefinitions: ConfigSection {
    static let section = ""
    static let keys: [String] = []
    static let lists = ["functions"]

    struct Entry: Decodable {
        var kind: String?
        var url: String?
        var secret: String?
        var command: [String]?
        var timeoutSeconds: Int?

        init(from decoder: any Decoder) throws {
            let all = try decoder.entryKeys(known: ["kind", "url", "secret", "command", "timeout_seconds"])
            kind = try all.optional("kind")
            let own: Set<String> = switch kind {
            case "webhook": ["kind", "url", "secret", "timeout_seconds"]
            case "command": ["kind", "command", "timeout_seconds"]
            default: ["kind", "url", "secret", "command", "timeout_seconds"]
            }
            let entry = try decoder.entryKeys(known: own)
            url = try entry.optional("url")
            secret = try entry.optional("secret")
            command = try entry.optional("command")
            timeoutSeconds = try entry.optional("timeout_seconds")
        }
    }

    static func read(_ config: SectionReader) throws -> [String: FunctionDefinition] {
        guard let entries = try config.list("functions", of: [String: Entry].self) else { return [:] }
        var definitions: [String: FunctionDefinition] = [:]
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            definitions[name] = try definition(entry, key: "functions.\(name)")
        }
        return definitions
    }

    private static func definition(_ entry: Entry, key: String) throws -> FunctionDefinition {
        let timeout = entry.timeoutSeconds ?? 5
        guard (1...60).contains(timeout) else { throw ConfigError(key: "\(key).timeout_seconds", message: "must be between 1 and 60") }
        switch entry.kind {
        case "webhook":
            guard let url = entry.url, let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? "") else {
                throw ConfigError(key: "\(key).url", message: "must be an http(s) URL")
            }
            guard let secret = entry.secret, !secret.isEmpty else {
                throw ConfigError(key: "\(key).secret", message: "is required: requests are signed with it")
            }
            return .webhook(url: url, secret: secret, timeoutSeconds: timeout)
        case "command":
            guard let argv = entry.command, let program = argv.first, program.hasPrefix("/"),
                  FileManager.default.isExecutableFile(atPath: program) else {
                throw ConfigError(key: "\(key).command", message: "must be a list starting with the absolute path of an executable")
            }
            return .command(argv: argv, timeoutSeconds: timeout)
        default:
            throw ConfigError(key: "\(key).kind", message: "must be webhook or command")
        }
    }
}
