import Foundation

/// Times as Parse writes them, `yyyy-MM-ddTHH:mm:ss.SSSZ` (ParseSwift refuses any other form): the Parse dialect's
/// answers, the import's Parse documents and Latchkey's own export all use this one form.
public enum ParseDate {
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let wholeSeconds = Date.ISO8601FormatStyle()

    /// Rounded to the nearest millisecond: the format style truncates, and a time read back from a store as
    /// 0.0889999… s would otherwise come out a millisecond early on every export and import.
    public static func string(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        if fraction < 0 { seconds -= 1; fraction += 1000 }
        let whole = wholeSeconds.format(Date(timeIntervalSince1970: Double(seconds)))  // …T05:06:07Z
        return whole.dropLast() + "." + String(fraction + 1000).dropFirst() + "Z"
    }

    /// ISO 8601 with or without fractional seconds.
    public static func parse(_ text: String) -> Date? {
        (try? fractional.parse(text)) ?? (try? wholeSeconds.parse(text))
    }
}
