import ArgumentParser
import Foundation
import LatchkeyCore

/// `latchkey audit --since 24h`: the audit log, oldest first, one event per line.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "audit", abstract: "Print audit events.")
    @OptionGroup var options: ConfigOption
    @Option(help: "How far back: a duration (30m, 24h, 7d) or an ISO 8601 time (2026-11-01T00:00:00Z).")
    var since: String = "24h"
    @Option(help: "At most this many events.")
    var limit: Int = 1000
    @Flag(help: "One JSON object per line instead of columns.")
    var json = false

    func run() async throws {
        guard let start = Self.parseSince(since, now: Date()) else {
            throw ValidationError("--since takes a duration like 30m, 24h, 7d or an ISO 8601 time")
        }
        let runtime = try await Runtime.open(options, access: .readOnly)
        let events = try await OperatorViews(store: runtime.store).auditEvents(AuditQuery(since: start, limit: limit))
        let formatter = ISO8601DateFormatter()
        for event in events {
            if json {
                let line: [String: String?] = ["at": formatter.string(from: event.at), "kind": event.kind, "user_id": event.userId,
                                               "email": event.email, "client_ip": event.clientIp, "user_agent": event.userAgent,
                                               "detail": event.detail]
                let data = try JSONSerialization.data(withJSONObject: line.compactMapValues { $0 }, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                // Client-supplied text (user agent, addresses) may carry ESC sequences: escaped before the terminal.
                print([formatter.string(from: event.at), event.kind, event.email ?? "-", event.clientIp ?? "-",
                       event.detail ?? "", event.userAgent ?? ""].map(TerminalText.escape).joined(separator: "\t"))
            }
        }
    }

    static func parseSince(_ text: String, now: Date) -> Date? {
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        guard let unit = text.last.flatMap({ units[$0] }), let amount = Double(text.dropLast()), amount >= 0 else { return nil }
        return now - amount * unit
    }
}
