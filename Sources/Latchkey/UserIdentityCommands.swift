import ArgumentParser
import Foundation
import LatchkeyCore

/// `latchkey users identities | unlink | by-identity`: the admin API's identity operations on the box.
extension UsersCommand {
    struct Identities: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The user's identities (provider and subject) in link order.")
        @OptionGroup var target: UserArgument
        func run() async throws {
            let (_, identities) = try await target.run { engine, user in try await engine.adminIdentities(user) }
            print(["provider", "subject", "linked", "last used"].joined(separator: "\t"))
            for identity in identities {
                print([identity.provider, identity.subject, identity.createdAt.ISO8601Format(), identity.lastUsedAt.ISO8601Format()]
                    .map(TerminalText.escape).joined(separator: "\t"))
            }
            print(identities.count == 1 ? "1 identity" : "\(identities.count) identities")
        }
    }

    struct Unlink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the user's identity of a provider (never the last way in).")
        @OptionGroup var target: UserArgument
        @Argument(help: "The provider: anonymous, apple, google, ...") var provider: String
        func run() async throws {
            try await target.run { try await $0.adminUnlink($1, provider: provider, caller: caller) }
            print("unlinked \(provider) from \(target.user)")
        }
    }

    struct Passkeys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The user's passkeys: name, when made and last used, synced or not, clone flags.")
        @OptionGroup var target: UserArgument
        func run() async throws {
            let passkeys = try await target.run { engine, user in try await engine.adminPasskeys(user) }
            print(["id", "name", "created", "last used", "kind", "flag"].joined(separator: "\t"))
            for passkey in passkeys {
                print([passkey.id, passkey.name, passkey.createdAt.ISO8601Format(), passkey.lastUsedAt?.ISO8601Format() ?? "never",
                       passkey.backupEligible ? "synced" : "device-bound", passkey.cloneFlaggedAt == nil ? "-" : "clone suspected"]
                    .map(TerminalText.escape).joined(separator: "\t"))
            }
            print(passkeys.count == 1 ? "1 passkey" : "\(passkeys.count) passkeys")
        }
    }

    struct RemovePasskey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove-passkey", abstract: "Remove one of the user's passkeys (never the last way in).")
        @OptionGroup var target: UserArgument
        @Argument(help: "The passkey's id, as `users passkeys` lists it.") var id: String
        func run() async throws {
            try await target.run { try await $0.adminRemovePasskey($1, id: id, caller: caller) }
            print("removed passkey \(id) from \(target.user)")
        }
    }

    struct ByIdentity: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "by-identity", abstract: "The user holding an identity.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The provider: anonymous, apple, google, ...") var provider: String
        @Argument(help: "The provider's subject (sub).") var subject: String
        @Flag(help: "As JSON.") var json = false
        func run() async throws {
            let engine = try await Runtime.operatorService(options)
            UserOutput.print(try await UserOutput.run { try await engine.adminFindUser(provider: provider, subject: subject) }, json: json)
        }
    }
}
