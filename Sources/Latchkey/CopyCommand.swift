import ArgumentParser
import Foundation
import LatchkeyCore
import LatchkeyPostgres
import LatchkeySQLite

/// `latchkey copy --to postgres://…`: moves everything from the configured SQLite database into an empty
/// PostgreSQL one, in one transaction (a failure leaves the target empty). Passwords, refresh tokens, link tokens,
/// signing keys and queued mail keep working because the server key and every hash come along unchanged.
struct CopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy", abstract: "Copy the SQLite database into an empty PostgreSQL database (stop the server first).")
    @OptionGroup var options: ConfigOption
    @Option(help: "The target: postgres://user@host[:port]/database.") var to: String
    @Option(name: .customLong("to-password-file"), help: "A file holding the target's password.") var passwordFile: String?
    @Option(name: .customLong("to-tls"), help: "disable, prefer, require or verify-full.") var tls = "prefer"

    func run() async throws {
        let config = try Runtime.loadConfig(options)
        guard config.database.postgres == nil else {
            throw StartupError(key: "database.url", message: "copy reads the SQLite database (database.path); unset database.url",
                               exitCode: .usage)
        }
        let target = try targetSettings()
        let source = try await Runtime.open(config, access: .readOnly, chatty: true)
        guard let sqlite = source.store as? SQLiteStore else { throw StartupError(key: "database.path", message: "not SQLite", exitCode: .usage) }
        let snapshot = try await sqlite.snapshot()

        let store = try PostgresStore(settings: target, migrations: EmbeddedDefaults.postgresMigrations, logger: source.logger)
        do {
            try await store.migrate()
        } catch {
            throw StartupError(key: "--to", message: "cannot reach or migrate \(target.safeDescription): \(String(reflecting: error))",
                               exitCode: .unavailable)
        }
        guard try await store.isEmpty() else {
            throw StartupError(key: "--to", message: "\(target.safeDescription) already holds data; copy only fills an empty database",
                               exitCode: .cannotCreate)
        }
        let progress = ProgressReport("copy: rows", total: snapshot.rowCount)
        do {
            try await store.transaction { tx in try await Self.write(snapshot, into: tx, progress: progress) }
        } catch {
            // One transaction: nothing was written. PSQLError's description hides the cause; an operator needs it.
            throw StartupError(key: "--to", message: "the copy failed and wrote nothing: \(String(reflecting: error))", exitCode: .ioError)
        }
        progress.finish()
        await store.shutdown()
        print("copied \(snapshot.users.count) users, \(snapshot.identities.count) identities, \(snapshot.apiKeys.count) API keys, "
              + "\(snapshot.secondFactors.count) second factors, \(snapshot.sessions.count) sessions, \(snapshot.linkTokens.count) link tokens, "
              + "\(snapshot.signingKeys.count) signing keys, \(snapshot.clients.count) clients, \(snapshot.consents.count) consents, "
              + "\(snapshot.browserSessions.count) browser sessions, \(snapshot.outbox.count) mails and \(snapshot.audit.count) audit events "
              + "from \(source.storeDescription) to \(target.safeDescription)")
    }

    private func targetSettings() throws -> PostgresSettings {
        guard let mode = PostgresSettings.TLSMode(rawValue: tls) else {
            throw StartupError(key: "--to-tls", message: "must be disable, prefer, require or verify-full", exitCode: .usage)
        }
        var password: String?
        if let passwordFile {
            guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                throw StartupError(key: "--to-password-file", message: "cannot read \(passwordFile)", exitCode: .noInput)
            }
            password = text.trimmingCharacters(in: .newlines)
        }
        do { return try PostgresSettings(url: to, password: password, tls: mode, poolSize: 2) } catch {
            throw StartupError(key: "--to", message: "\(error)", exitCode: .usage)
        }
    }

    private static func write(_ snapshot: StoreSnapshot, into tx: any Repositories, progress: ProgressReport) async throws {
        for value in snapshot.serverValues { _ = try await tx.serverValues.insertIfAbsent(name: value.name, value: value.value); progress.advance() }
        for key in snapshot.signingKeys { try await tx.serverValues.insert(signingKey: key); progress.advance() }
        for user in snapshot.users { try await tx.users.insert(user); progress.advance() }
        for role in snapshot.roles { _ = try await tx.users.grant(role); progress.advance() }
        for identity in snapshot.identities { try await tx.identities.link(identity); progress.advance() }
        for key in snapshot.apiKeys { try await tx.apiKeys.insert(key); progress.advance() }
        for factor in snapshot.secondFactors { try await tx.secondFactors.insert(factor); progress.advance() }
        for passkey in snapshot.passkeys { try await tx.passkeys.insert(passkey); progress.advance() }
        for flow in snapshot.flows { try await tx.flows.insert(flow); progress.advance() }
        for code in snapshot.codes { try await tx.flows.saveCode(code); progress.advance() }
        for token in snapshot.linkTokens { try await tx.linkTokens.replace(token); progress.advance() }
        for session in snapshot.sessions { try await tx.sessions.insert(session); progress.advance() }
        for mail in snapshot.outbox { try await tx.outbox.enqueue(mail); progress.advance() }
        for event in snapshot.audit { try await tx.audit.append(event); progress.advance() }
        for client in snapshot.clients { _ = try await tx.clients.insertClient(client); progress.advance() }
        for consent in snapshot.consents { try await tx.openID.saveConsent(consent); progress.advance() }
        for session in snapshot.browserSessions { try await tx.openID.insert(session); progress.advance() }
        for code in snapshot.authorizationCodes { try await tx.openID.insert(code); progress.advance() }
    }
}
