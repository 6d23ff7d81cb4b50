import ArgumentParser
import Foundation
import LatchkeyCore

/// `latchkey keys list | rotate`: the JWT signing keys.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "keys", abstract: "List, rotate or revoke the token signing keys.",
                                                    subcommands: [List.self, Rotate.self, Revoke.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every key: signing (the newest), published (verifies tokens not yet expired) or retired.")
        @OptionGroup var options: ConfigOption
        func run() async throws {
            let formatter = ISO8601DateFormatter()
            for key in try await Runtime.operatorService(options).signingKeyInfo() {
                print([key.kid, key.algorithm, key.state.rawValue, formatter.string(from: key.createdAt)].joined(separator: "\t"))
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new signing key. Running servers sign with it within ten seconds; the previous key stays published until its tokens expire.")
        @OptionGroup var options: ConfigOption
        func run() async throws {
            let key = try await Runtime.operatorService(options).rotateSigningKey(caller: UsersCommand.caller)
            print("new signing key \(key.kid)")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a compromised key: it leaves the JWKS and stops verifying tokens at once; running servers drop it within ten seconds. Revoking the signing key makes a new one.")
        @OptionGroup var options: ConfigOption
        // A kid is base64url and may begin with "-": taken as it is, never read as flags (`-…h…` would show the help).
        @Argument(parsing: .allUnrecognized, help: "The key's kid (see `latchkey keys list`).") var kids: [String] = []

        func validate() throws {
            guard kids.count == 1 else { throw ValidationError("give exactly one kid (see `latchkey keys list`)") }
        }

        func run() async throws {
            let kid = kids[0]
            do {
                let replacement = try await Runtime.operatorService(options).revokeSigningKey(kid: kid, caller: UsersCommand.caller)
                print("revoked \(kid)" + (replacement.map { "; new signing key \($0.kid)" } ?? ""))
            } catch OperatorService.KeyRevocationError.unknownKey {
                throw StartupError(key: "kid", message: "no signing key \(kid) (see `latchkey keys list`)", exitCode: .noInput)
            }
        }
    }
}
