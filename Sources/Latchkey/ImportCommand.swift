import ArgumentParser
import Foundation
import LatchkeyCore

/// `latchkey import --format parse|jsonl FILE`: brings accounts (and Parse sessions) in from an export, with their
/// passwords, objectIds and sessions, so nobody signs up, resets or logs in again. Batches of users, each in one
/// transaction; a re-run skips what is already here.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import users from a Parse Server export or Latchkey's own JSON lines.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case parse, jsonl }

    @OptionGroup var options: ConfigOption
    @Option(help: "parse (Parse Server _User documents) or jsonl (what latchkey export writes).") var format: Format
    @Argument(help: "The users file: JSON lines, a JSON array, or {\"results\": [...]}.") var file: String
    @Option(help: "Parse _Session documents of the same users (their tokens keep working).") var sessions: String?
    @Option(name: .customLong("app"), help: "The Parse app (parse.apps id) the sessions and the custom fields belong to; needed with several apps.")
    var appId: String?
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
        let sessionFile = try sessions.map { try ImportFile(path: $0, key: "--sessions") }
        let engine = try await Runtime.engine(options, access: .create, chatty: true), importer = UserImporter(engine: engine)
        let app = try sessionFile.map { _ in try sessionApp(engine) }

        let started = Date()
        var tally = ImportTally()
        let ledger = ImportLedger(fieldApp: try fieldApp(engine))
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
        switch format {
        case .parse:
            try await users.forEach([String: JSONValue].self) { line, record in
                try await add(record.map { ParseExportDocument.user($0, line: line) })
            }
        case .jsonl:
            try await users.forEach(NeutralUserLine.self) { line, record in
                try await add(record.flatMap { $0.imported(line: line) })
            }
        }
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
        print(report(tally, seconds: Date().timeIntervalSince(started)))
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


    private func report(_ tally: ImportTally, seconds: Double) -> String {
        var lines = [dryRun ? "dry run: nothing was written; an import would give:" : "import finished in \(String(format: "%.1f", seconds)) s:"]
        func row(_ name: String, _ value: String) { lines.append("  " + name.padding(toLength: 24, withPad: " ", startingAt: 0) + value) }
        row("imported", "\(tally.imported)")
        row("skipped (already here)", "\(tally.skipped)")
        row("conflicts", "\(tally.conflicts)")
        row("invalid", "\(tally.invalid)")
        let unsupported = tally.unsupportedHashes.sorted(by: { $0.key < $1.key }).map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        row("unsupported hashes", "\(tally.unsupportedHashes.values.reduce(0, +))\(unsupported.isEmpty ? "" : " (\(unsupported))")")
        row("without password", "\(tally.withoutPassword)")
        let unconfigured = tally.identitiesUnconfigured
        row("identities", "\(tally.identitiesCarried)\(unconfigured == 0 ? "" : " (\(unconfigured) of providers not configured here)")")
        if tally.passkeysCarried > 0 { row("passkeys", "\(tally.passkeysCarried)") }
        row("fields dropped", "\(tally.fieldsDropped)")
        if sessions != nil {
            row("sessions", "\(tally.sessionsImported) imported, \(tally.sessionsSkipped) already here, "
                + "\(tally.sessionsExpired) expired, \(tally.sessionsOrphaned) without their user")
        }
        if !tally.problems.isEmpty {
            lines.append(tally.problems.count < ImportTally.problemsKept ? "problems:" : "the first \(ImportTally.problemsKept) problems:")
            lines += tally.problems.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
