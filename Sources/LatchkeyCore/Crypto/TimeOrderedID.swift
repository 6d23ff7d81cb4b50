import Foundation

/// UUID version 7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, then 74 random bits.
///
/// A row keyed by a random UUID lands on a random page of the key's index; at millions of rows that page is
/// rarely cached and costs a page write in the commit. Keys made in time order go next to the ones made just
/// before them, on a page the last commits already dirtied. For row keys only: nothing secret is a UUID.
public enum TimeOrderedID {
    public static func make(at date: Date) -> String {
        var b = SecureRandom.bytes(16)
        b.replaceSubrange(0..<millisecondByteCount, with: millisecondBytes(date))
        b[6] = 0x70 | (b[6] & 0x0F)  // version 7
        b[8] = 0x80 | (b[8] & 0x3F)  // RFC 9562 variant
        return SecureRandom.uuidString(b)
    }

    static let millisecondByteCount = 6

    /// The time a version-7 id was made at (to the millisecond); nil for any other id (a random version-4 one).
    public static func date(of id: String) -> Date? {
        let hex = id.utf8.filter { $0 != UInt8(ascii: "-") }
        guard hex.count == 32, hex[12] == UInt8(ascii: "7"),
              let milliseconds = UInt64(String(decoding: hex.prefix(12), as: UTF8.self), radix: 16) else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The 48-bit Unix millisecond count, big-endian: what makes keys sort by time (also refresh-token keys).
    static func millisecondBytes(_ date: Date) -> [UInt8] {
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        return (0..<millisecondByteCount).map { UInt8(truncatingIfNeeded: milliseconds >> UInt64(40 - 8 * $0)) }
    }
}
