import ArgumentParser
import Foundation
import LatchkeyCore

/// `latchkey users second-factors | reset-second-factors`: the admin API's second-factor operations on the box.
extension UsersCommand {
    struct SecondFactors: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "second-factors",
                                                        abstract: "The user's second factors (kind, masked target, enrolled).")
        @OptionGroup var target: UserArgument
        func run() async throws {
            let (_, factors) = try await target.run { engine, user in try await engine.adminSecondFactors(user) }
            print(["id", "kind", "target", "enrolled", "recovery codes left"].joined(separator: "\t"))
            for factor in factors {
                print([factor.id, factor.kind.rawValue, factor.target ?? "-", factor.createdAt.ISO8601Format(),
                       factor.recoveryCodesLeft.map(String.init) ?? "-"].map(TerminalText.escape).joined(separator: "\t"))
            }
            print(factors.count == 1 ? "1 second factor" : "\(factors.count) second factors")
        }
    }

    struct ResetSecondFactors: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-second-factors",
            abstract: "Remove all of the user's second factors and recovery codes (audited; the user is mailed).")
        @OptionGroup var target: UserArgument
        func run() async throws {
            let removed = try await target.run { try await $0.adminResetSecondFactors($1, caller: caller) }
            print(removed == 1 ? "removed 1 second factor of \(target.user)" : "removed \(removed) second factors of \(target.user)")
        }
    }
}
