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
            let (_, sessions, consents) = try await target.run { engine, user in try await engine.adminBrowserSessions(user) }
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

/// `latchkey clients`: the configured clients, as the OpenID provider and the native API see them (never a secret).
struct ClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clients", abstract: "List the configured clients (secrets never shown).")
    @OptionGroup var options: ConfigOption
    func run() async throws {
        let config = try Runtime.loadConfig(options)
        print(["id", "name", "kind", "mfa", "redirect uris"].joined(separator: "\t"))
        for client in config.engine.clients {
            let kind = (client.isConfidential ? "confidential" : "public") + (client.firstParty ? "" : ", third-party")
            print([client.id, client.name, kind, client.mfa.rawValue, client.redirectURIs.joined(separator: " ")]
                .map(TerminalText.escape).joined(separator: "\t"))
        }
    }
}
