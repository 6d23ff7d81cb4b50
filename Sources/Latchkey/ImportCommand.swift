import ArgumentParser
import Foundation
import LatchkeyCore

/// `latchkey import --format FORMAT FILE`: brings accounts in from another system's export with their ids,
/// passwords (where the source exports them), identities and profile, so nobody signs up again and the data that
/// points at a user's id still does; Parse sessions come along too. Batches of users, each in one transaction; a
/// re-run skips what is already here.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import users from App Services, Firebase, Auth0, Supabase, Keycloak, Parse Server or Latchkey's own JSON lines.")

    @OptionGroup var options: ConfigOption
    @Option(help: "app-services, firebase, auth0, supabase, keycloak, parse (Parse Server _User documents) or jsonl (what latchkey export writes).")
    var format: ImportSources.Format
    @Argument(help: "The users file: JSON lines, a JSON array, {\"results\"|\"users\": [...]}, or CSV (Firebase, Supabase).") var file: String
    @Option(help: "Parse _Session documents of the same users (their tokens keep working).") var sessions: String?
    @Option(name: .customLong("app"), help: "The Parse app (parse.apps id) the sessions and the custom fields belong to, or with app-services the app (app_services.apps id) custom_data belongs to; needed with several apps.")
    var appId: String?
    @Option(help: "Firebase: the project's password hash parameters (JSON, or the text the console shows).") var firebaseHashConfig: String?
    @Option(help: "Auth0: the password-hash export Auth0 support provides (NDJSON).") var auth0Passwords: String?
    @Option(help: "Supabase: auth.identities as CSV with a header or JSON lines.") var supabaseIdentities: String?
    @Flag(help: "Check everything and report the same summary, writing nothing.") var dryRun = false
    @Option(help: "Users per transaction.") var batchSize = 1000

    func run() async throws {
        guard (1...10_000).contains(batchSize) else {
            throw StartupError(key: "--batch-size", message: "must be between 1 and 10000", exitCode: .usage)
        }
        guard format == .parse || sessions == nil else {
            throw StartupError(key: "--sessions", message: "sessions come from a Parse export (--format parse)", exitCode: .usage)
        }
        let users = try ImportFile(path: file, key: "FILE")
        var sources = try await ImportSources(format: format, firebaseHashConfig: firebaseHashConfig, auth0Passwords: auth0Passwords,
                                              supabaseIdentities: supabaseIdentities)
        let sessionFile = try sessions.map { try ImportFile(path: $0, key: "--sessions") }
        let engine = try await Runtime.engine(options, access: .create, chatty: true), importer = UserImporter(engine: engine)
        let app = try sessionFile.map { _ in try sessionApp(engine) }
        if format == .appServices { sources.customDataApp = try customDataApp(engine) }

        let started = Date()
        var tally = ImportTally()
        let ledger = ImportLedger(fieldApp: format == .appServices ? "" : try fieldApp(engine))
        var batch: [ImportedUser] = []
        var read = 0
        let progress = ProgressReport(dryRun ? "import (dry run): users" : "import: users", total: users.recordEstimate)
        func flush() async throws {
            guard !batch.isEmpty else { return }
            do { tally.add(try await importer.importUsers(batch, ledger: ledger, dryRun: dryRun)) } catch {
                // The batches before this one are in; a re-run skips them and finishes.
                throw StartupError(key: file, message: "the batch from line \(batch[0].line) failed (\(String(describing: error))); "
                                   + "\(tally.imported) users before it were imported, run the same command again to finish",
                                   exitCode: .ioError)
            }
            batch.removeAll(keepingCapacity: true)
        }
        func unreadable(_ error: ImportLineError) {
            tally.invalid += 1
            tally.problem(error.line, error.reason)
        }
        func add(_ record: Result<ImportedUser, ImportLineError>) async throws {
            switch record {
            case .success(let user): batch.append(user)
            case .failure(let error): unreadable(error)
            }
            read += 1
            progress.advance()
            if batch.count >= batchSize { try await flush() }
        }
        try await sources.read(format, users, now: Date(), add)
        try await flush()

        if let sessionFile, let app {
            var sessionBatch: [ImportedSession] = []
            try await sessionFile.forEach([String: JSONValue].self) { line, record in
                guard case .success(let document) = record, let session = ParseExportDocument.session(document, line: line) else {
                    return unreadable(ImportLineError(line: line, reason: "sessions file: not a _Session document with a token and a user"))
                }
                sessionBatch.append(session)
                if sessionBatch.count >= batchSize {
                    tally.add(try await importer.importParseSessions(sessionBatch, app: app, ledger: ledger, dryRun: dryRun))
                    sessionBatch.removeAll(keepingCapacity: true)
                }
            }
            if !sessionBatch.isEmpty { tally.add(try await importer.importParseSessions(sessionBatch, app: app, ledger: ledger, dryRun: dryRun)) }
        }

        if !dryRun { try await importer.auditImport(tally, source: "\(format.rawValue) \(URL(fileURLWithPath: file).lastPathComponent)") }
        progress.finish()
        print(ImportReport(tally: tally, dryRun: dryRun, sessions: sessions != nil).text(seconds: Date().timeIntervalSince(started)))
    }

    /// The App Services app named by `--app`, else the only one configured; nil when none is, or several are.
    private func customDataApp(_ engine: LatchkeyEngine) throws -> String? {
        let apps = engine.settings.apps.map(\.id)
        guard let appId else { return apps.count == 1 ? apps[0] : nil }
        guard apps.contains(appId) else {
            throw StartupError(key: "--app", message: "no App Services app \(appId) in app_services.apps (configured: \(apps.joined(separator: ", ")))",
                               exitCode: .usage)
        }
        return appId
    }

    /// The Parse app named by `--app`, else the only one configured; nil when none is, or several are.
    private func namedApp(_ engine: LatchkeyEngine) throws -> ParseApp? {
        let apps = engine.settings.parseApps
        guard let appId else { return apps.count == 1 ? apps[0] : nil }
        guard let app = apps.first(where: { $0.id == appId }) else {
            throw StartupError(key: "--app", message: "no Parse app \(appId) in parse.apps (configured: "
                               + "\(apps.map(\.id).joined(separator: ", ")))", exitCode: .usage)
        }
        return app
    }

    /// The Parse app whose schema imported custom fields join (their types are fixed per app); with no app named or
    /// implied they are kept apart from every app's.
    private func fieldApp(_ engine: LatchkeyEngine) throws -> String { try namedApp(engine)?.id ?? "" }

    /// The Parse app sessions are opened for: `--app`, or the only one configured.
    private func sessionApp(_ engine: LatchkeyEngine) throws -> ParseApp {
        if let app = try namedApp(engine) { return app }
        throw StartupError(key: "--app", message: engine.settings.parseApps.isEmpty ? "sessions need a Parse app: configure parse.apps first"
                           : "several Parse apps are configured; name the sessions' one", exitCode: .usage)
    }
}
