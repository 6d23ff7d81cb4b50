import ArgumentParser
import Foundation
import LatchkeyCore
import LatchkeyHTTP

/// `latchkey users …`: the admin API's user operations for the operator on the box (same engine calls, audited
/// the same way, as `cli`).
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "List, inspect, disable, enable and delete users.",
        subcommands: [List.self, Show.self, Disable.self, Enable.self, Unlock.self, SendPasswordReset.self, Grant.self, Revoke.self,
                      Delete.self, RevokeSessions.self,
                      VerifyEmail.self,
                      Identities.self, Unlink.self, ByIdentity.self, Passkeys.self, RemovePasskey.self, SecondFactors.self, ResetSecondFactors.self, BrowserSessions.self,
                      EndBrowserSession.self, RevokeConsent.self])

    static let caller = UserImporter.commandLineCaller

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Users in creation order, optionally whose email or username starts with a text.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "Email or username prefix.") var prefix: String?
        // Unconditional, so `--limit -5` is read as a number and refused by `validate`, not as a missing value.
        @Option(parsing: .unconditional, help: "At most this many users.") var limit = 100
        @Flag(help: "One JSON object per line.") var json = false

        func validate() throws {
            guard limit >= 1 else { throw ValidationError("--limit must be at least 1 (it was \(limit))") }
        }

        func run() async throws {
            let database = try Runtime.loadConfig(options).database.summary
            let engine = try await Runtime.operatorService(options)
            var cursor: UserCursor?
            var left = limit, listed = 0
            // A header for people; --json stays one object per line for scripts.
            if !json { print(UserOutput.header) }
            // Pages of up to 500 until the limit or the last user: the same keyset pagination the API uses.
            while left > 0 {
                let page = try await engine.adminListUsers(prefix: prefix, after: cursor, limit: min(left, 500))
                for user in page.users { UserOutput.print(user, json: json) }
                left -= page.users.count
                listed += page.users.count
                guard let next = page.next else { break }
                cursor = next
            }
            // Named, so an operator who read the wrong configuration sees it at once.
            if !json { print("\(listed == 1 ? "1 user" : "\(listed) users") in \(database)") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One user, by id, objectId, email or username.")
        @OptionGroup var target: UserArgument
        @Flag(help: "As JSON.") var json = false
        func run() async throws { UserOutput.print(try await target.run { engine, user in try await engine.adminFindUser(user) }, json: json) }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Refuse the user's sign-ins everywhere and end their sessions.")
        @OptionGroup var target: UserArgument
        func run() async throws {
            UserOutput.print(try await target.run { try await $0.adminSetDisabled($1, disabled: true, caller: caller) })
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a disabled user sign in again.")
        @OptionGroup var target: UserArgument
        func run() async throws {
            UserOutput.print(try await target.run { try await $0.adminSetDisabled($1, disabled: false, caller: caller) })
        }
    }

    struct Unlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lift a lockout from wrong passwords or second factors.")
        @OptionGroup var target: UserArgument
        func run() async throws { UserOutput.print(try await target.run { try await $0.adminUnlock($1, caller: caller) }) }
    }

    struct SendPasswordReset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "send-password-reset",
                                                        abstract: "Mail the user a link to the hosted reset page.")
        @OptionGroup var target: UserArgument
        func run() async throws {
            try await target.run { try await $0.adminSendPasswordReset($1, caller: caller) }
            print("queued a reset-link mail for \(target.user)")
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give the user a role (operator: may sign in to the console with the account).")
        @OptionGroup var target: UserArgument
        @Argument(help: "The role: operator.") var role: String
        func run() async throws {
            try await target.run { try await $0.adminGrantRole($1, role: role, caller: caller) }
            print("\(target.user) has the role \(role)")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take a role away from the user.")
        @OptionGroup var target: UserArgument
        @Argument(help: "The role: operator.") var role: String
        func run() async throws {
            try await target.run { try await $0.adminRevokeRole($1, role: role, caller: caller) }
            print("\(target.user) no longer has the role \(role)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete the user with their sessions, tokens and pending flows.")
        @OptionGroup var target: UserArgument
        @Flag(help: "Required: deleting cannot be undone.") var yes = false
        func run() async throws {
            guard yes else { throw ValidationError("deleting cannot be undone: add --yes") }
            try await target.run { try await $0.adminDeleteUser($1, caller: caller) }
            print("deleted \(target.user)")
        }
    }

    struct RevokeSessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke-sessions", abstract: "Sign the user out everywhere.")
        @OptionGroup var target: UserArgument
        func run() async throws {
            try await target.run { try await $0.adminRevokeSessions($1, caller: caller) }
            print("revoked every session of \(target.user)")
        }
    }

    struct VerifyEmail: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "verify-email", abstract: "Mark the user's email address verified.")
        @OptionGroup var target: UserArgument
        func run() async throws {
            UserOutput.print(try await target.run { try await $0.adminVerifyEmail($1, caller: caller) })
        }
    }
}

/// The configuration and the user a subcommand acts on.
struct UserArgument: ParsableArguments {
    @OptionGroup var options: ConfigOption
    @Argument(help: "Id, objectId, email or username.") var user: String

    /// Runs `body` on the engine over the configured database; the engine's admin errors become one line and exit 66.
    @discardableResult
    func run<T>(_ body: (OperatorService, String) async throws -> T) async throws -> T {
        let engine = try await Runtime.operatorService(options)
        return try await UserOutput.run { try await body(engine, user) }
    }
}

/// How the CLI prints users and turns the engine's admin errors into one line and exit status 1.
enum UserOutput {
    static let header = ["id", "objectId", "email", "username", "status", "verified", "created", "last sign-in"].joined(separator: "\t")

    static func print(_ user: UserRecord, json: Bool = false) {
        if json {
            // The admin API's representation, so scripts can switch between the two.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            if let data = try? encoder.encode(JSONValue.object(AdminJSON.user(user))) { Swift.print(String(decoding: data, as: UTF8.self)) }
            return
        }
        Swift.print([user.id, user.objectId, user.email ?? "-", user.username ?? "-", user.status.rawValue,
                     user.emailVerified ? "verified" : "unverified", user.createdAt.ISO8601Format(),
                     user.lastLoginAt.map { $0.ISO8601Format() } ?? "never"].map(TerminalText.escape).joined(separator: "\t"))
    }

    @discardableResult
    static func run<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as LatchkeyEngine.AdminError {
            let message = switch error {
            case .userNotFound: "no user has that id, objectId, email or username"
            case .userPending: "the account has not finished signing up"
            case .identityNotFound: "the user has no identity of that provider"
            case .passkeyNotFound: "the user has no passkey with that id"
            case .browserSessionNotFound: "the user has no live browser session with that id"
            case .consentNotFound: "the user gave that client no consent"
            case .clientNotFound: "no client has that id"
            case .clientInConfiguration: "that client is in the configuration file: change it there"
            case .invalidClient(let reason): reason
            }
            let key = switch error {
            case .clientNotFound, .clientInConfiguration, .invalidClient: "client"
            default: "user"
            }
            throw StartupError(key: key, message: message, exitCode: .noInput)
        } catch LatchkeyError.lastWayIn {
            throw StartupError(key: "provider", message: "that identity is the account's last way to sign in; it stays", exitCode: .noInput)
        } catch LatchkeyError.apiKeyNotFound {
            throw StartupError(key: "id", message: "no API key has that id", exitCode: .noInput)
        } catch LatchkeyError.apiKeyRefused(let reason) {
            throw StartupError(key: "name", message: reason, exitCode: .noInput)
        } catch LatchkeyError.unknownClient {
            throw StartupError(key: "app", message: "no App Services app has that id (app_services.apps)", exitCode: .noInput)
        } catch OperatorService.RoleRefusal.unknownRole(let role) {
            throw StartupError(key: "role", message: "there is no role \(role): the roles are \(UserRole.known.joined(separator: ", "))",
                               exitCode: .usage)
        } catch let refusal as OperatorService.RecoveryRefusal {
            throw StartupError(key: "user", message: refusal == .noEmail ? "the account has no email address to mail a link to"
                               : "the account is disabled: enable it before mailing it a reset link", exitCode: .noInput)
        }
    }
}
