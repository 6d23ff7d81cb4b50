import ArgumentParser
import Foundation
import LatchkeyCore

/// `latchkey users browser-sessions | end-browser-session | revoke-consent`: the admin API's OpenID operations on a
/// user, on the box.
extension UsersCommand {
    struct BrowserSessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "browser-sessions",
                                                        abstract: "The user's sessions at the hosted sign-in pages, and the consents they gave.")
        @OptionGroup var target: UserArgument
        func run() async throws {
            let (sessions, consents) = try await target.run { engine, user in
                (try await engine.adminBrowserSessions(user), try await engine.adminConsents(user))
            }
            print(["session", "signed in", "how", "expires", "ip"].joined(separator: "\t"))
            for session in sessions {
                print([session.id, session.authTime.ISO8601Format(), session.amr, session.expiresAt.ISO8601Format(), session.ip ?? "-"]
                    .map(TerminalText.escape).joined(separator: "\t"))
            }
            for consent in consents {
                print(["consent", consent.clientId, consent.scope, consent.grantedAt.ISO8601Format()].map(TerminalText.escape).joined(separator: "\t"))
            }
            print("\(sessions.count) browser session(s), \(consents.count) consent(s)")
        }
    }

    struct EndBrowserSession: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "end-browser-session",
                                                        abstract: "Sign the user out of one browser session, with the refresh tokens it gave.")
        @OptionGroup var target: UserArgument
        @Argument(help: "The session id (see browser-sessions).") var session: String
        func run() async throws {
            try await target.run { try await $0.adminEndBrowserSession($1, sessionId: session, caller: caller) }
            print("ended browser session \(session) of \(target.user)")
        }
    }

    struct RevokeConsent: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke-consent",
                                                        abstract: "Withdraw the user's consent to a client, with the refresh tokens it holds.")
        @OptionGroup var target: UserArgument
        @Argument(help: "The client id.") var client: String
        func run() async throws {
            try await target.run { try await $0.adminRevokeConsent($1, clientId: client, caller: caller) }
            print("withdrew the consent of \(target.user) to \(client)")
        }
    }
}

/// `latchkey clients list | create | delete | rotate-secret`: the configuration file's clients and those made here or
/// through the admin API (stored; every replica sees a change within ten seconds). A new secret goes to a new file of
/// mode 0600 (never to the terminal or a log), ready for the app's `secret_file`; the store keeps only its SHA-256.
struct ClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clients", abstract: "List, create and delete clients; rotate a client's secret.",
                                                    subcommands: [List.self, Create.self, Delete.self, RotateSecret.self],
                                                    defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every client (secrets never shown).")
        @OptionGroup var options: ConfigOption
        func run() async throws {
            let engine = try await Runtime.engine(options)
            print(["id", "name", "kind", "mfa", "source", "redirect uris"].joined(separator: "\t"))
            for client in engine.allClients {
                let kind = (client.isConfidential ? "confidential" : "public") + (client.firstParty ? "" : ", third-party")
                let source = engine.source(of: client)
                print([client.id, client.name, kind, client.mfa.rawValue, source,
                       client.redirectURIs.joined(separator: " ")].map(TerminalText.escape).joined(separator: "\t"))
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a client; a confidential one's secret is written to --secret-file.")
        @OptionGroup var options: ConfigOption
        @Option(help: "Shown on the sign-in page.") var name: String
        @Option(name: .customLong("redirect-uri"), help: "Where sign-in may return (repeat for several).") var redirectURIs: [String] = []
        @Option(name: .customLong("post-logout-redirect-uri"), help: "Where sign-out may return (repeat).") var postLogoutRedirectURIs: [String] = []
        @Option(name: .customLong("scope"), help: "A scope beyond the standard ones (repeat).") var scopes: [String] = []
        @Option(help: "Second factors: off, optional or required.") var mfa = "off"
        @Flag(name: .customLong("public"), help: "No secret (a native app or a single-page app): PKCE is required.") var isPublic = false
        @Flag(name: .customLong("third-party"), help: "Users are asked for consent.") var thirdParty = false
        @Option(name: .customLong("secret-file"), help: "A new file (0600) to write a confidential client's secret to.") var secretFile: String?
        func run() async throws {
            guard let policy = MFAPolicy(rawValue: mfa) else { throw ValidationError("--mfa is off, optional or required") }
            guard isPublic != (secretFile != nil) else {
                throw ValidationError(isPublic ? "a public client has no secret: leave out --secret-file" : "a confidential client needs --secret-file (or --public)")
            }
            var new = NewClient(name: name)
            new.redirectURIs = redirectURIs; new.postLogoutRedirectURIs = postLogoutRedirectURIs; new.scopes = scopes
            new.mfa = policy; new.confidential = !isPublic; new.firstParty = !thirdParty
            let engine = try await Runtime.operatorService(options)
            let make = { try await UserOutput.run { try await engine.adminCreateClient(new, caller: UsersCommand.caller) } }
            guard let secretFile else { return print("client_id \(try await make().client.id)") }
            // The file first: a client whose secret had nowhere to go would be of no use.
            try await PrivateFile.filling(secretFile, key: "--secret-file") { output in
                let (client, secret) = try await make()
                output.write(Data(((secret ?? "") + "\n").utf8))  // confidential: a secret is always made
                print("client_id \(client.id)\nsecret written to \(secretFile) (mode 0600)")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a client made here or through the admin API.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The client id.") var id: String
        func run() async throws {
            let engine = try await Runtime.operatorService(options)
            try await UserOutput.run { try await engine.adminDeleteClient(id, caller: UsersCommand.caller) }
            print("deleted client \(id)")
        }
    }

    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rotate-secret",
                                                        abstract: "A new secret for a confidential client; the old one stops working.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The client id.") var id: String
        @Option(name: .customLong("secret-file"), help: "A new file (0600) to write the new secret to.") var secretFile: String
        func run() async throws {
            let engine = try await Runtime.operatorService(options)
            try await PrivateFile.filling(secretFile, key: "--secret-file") { output in
                let secret = try await UserOutput.run { try await engine.adminRotateClientSecret(id, caller: UsersCommand.caller) }
                output.write(Data((secret + "\n").utf8))
            }
            print("the new secret of \(id) is in \(secretFile)")
        }
    }
}
