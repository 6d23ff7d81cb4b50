import ArgumentParser
import Foundation
import LatchkeyCore

/// `latchkey mail status | retry`: the operator's view of the outbox.
struct MailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "mail", abstract: "Inspect and retry outgoing mail.",
                                                    subcommands: [Status.self, Retry.self])

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List pending, failed and recently sent mail (addresses masked).")
        @OptionGroup var options: ConfigOption
        @Option(help: "Rows per status.") var limit = 20

        func run() async throws {
            let runtime = try await Runtime.open(options, access: .readOnly)
            let views = OperatorViews(store: runtime.store)
            let formatter = ISO8601DateFormatter()
            for status in [OutboxRecord.Status.pending, .failed, .sent] {
                let rows = try await views.mail(status: status, limit: limit)
                print("\(status.rawValue) (\(rows.count)\(rows.count == limit ? "+" : ""))")
                for row in rows {
                    let when = formatter.string(from: row.sentAt ?? row.createdAt)
                    var line = "  #\(row.id ?? 0)  \(when)  \(EmailAddress.mask(row.recipient))  \(row.kind)  attempts=\(row.attempts)"
                    if status == .pending { line += "  next=\(formatter.string(from: row.nextAttemptAt))" }
                    if let error = row.lastError, status != .sent { line += "  last_error=\(error)" }
                    print(TerminalText.escape(line))
                }
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Queue every failed mail again (a running server sends it).")
        @OptionGroup var options: ConfigOption

        func run() async throws {
            // Through the engine, as the admin API does it: one transaction, audited (`admin.mail_retried`).
            let engine = try await Runtime.operatorService(options)
            let count = try await engine.adminRetryFailedMail(caller: UserImporter.commandLineCaller)
            print("queued \(count) failed mail(s) again")
        }
    }
}
