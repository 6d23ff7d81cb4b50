import ArgumentParser
import Foundation
import LatchkeyCore

/// `latchkey api-keys …`: server API keys for App Services apps, and revoking any key.
struct ApiKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api-keys", abstract: "Create, list and revoke App Services API keys.", subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A server API key for an app; the key is printed once.")
        @OptionGroup var options: ConfigOption
        @Option(help: "The App Services app id.") var app: String
        @Option(help: "The key's name (1 to 64 characters).") var name: String
        func run() async throws {
            let engine = try await Runtime.operatorService(options)
            let created = try await UserOutput.run { try await engine.createServerApiKey(appId: app, name: name, caller: UsersCommand.caller) }
            print("id\t\(created.apiKey.id)\nkey\t\(created.key)")
            FileHandle.standardError.write(Data("latchkey: the key is shown only now; store it as a secret.\n".utf8))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Server API keys, of one app or all.")
        @OptionGroup var options: ConfigOption
        @Option(help: "Only this App Services app's keys.") var app: String?
        func run() async throws {
            let engine = try await Runtime.operatorService(options)
            let keys = try await engine.serverApiKeys(appId: app)
            print(["id", "app", "name", "state", "created"].joined(separator: "\t"))
            for key in keys {
                print([key.id, key.appId, key.name, key.disabled ? "disabled" : "enabled", key.createdAt.ISO8601Format()]
                    .map(TerminalText.escape).joined(separator: "\t"))
            }
            print(keys.count == 1 ? "1 key" : "\(keys.count) keys")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key by id: a server key with its account, a user's key alone.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The key's id (24 hex digits).") var id: String
        func run() async throws {
            let engine = try await Runtime.operatorService(options)
            try await UserOutput.run { try await engine.revokeApiKey(id: id, caller: UsersCommand.caller) }
            print("revoked \(id)")
        }
    }
}
