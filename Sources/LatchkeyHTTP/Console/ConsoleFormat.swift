import Foundation
import LatchkeyCore

/// How the console writes times and ages: UTC to the second, the same on every replica and in every language.
enum ConsoleFormat {
    static func time(_ date: Date?) -> String {
        guard let date else { return "–" }
        return date.formatted(Date.ISO8601FormatStyle(dateSeparator: .dash, dateTimeSeparator: .space, timeSeparator: .colon,
                                                       timeZoneSeparator: .omitted, includingFractionalSeconds: false,
                                                       timeZone: TimeZone(identifier: "UTC")!)).replacingOccurrences(of: "Z", with: " UTC")
    }

    /// "3 d", "5 h", "12 min", "40 s".
    static func age(_ date: Date, now: Date) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        if seconds >= 86_400 { return "\(seconds / 86_400) d" }
        if seconds >= 3600 { return "\(seconds / 3600) h" }
        if seconds >= 60 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }

    /// A datetime-local field's value (`2026-11-26T18:30`, read as UTC) or ISO 8601 with a zone.
    static func parseTime(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        for suffix in [":00Z", "Z"] {
            if let date = try? Date(text + suffix, strategy: .iso8601) { return date }
        }
        return nil
    }

    /// The value a datetime-local field shows for `date`.
    static func field(_ date: Date?) -> String {
        guard let date else { return "" }
        return String(date.ISO8601Format().prefix(16))
    }
}
