import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// A date as GRDB stores it: `yyyy-MM-dd HH:mm:ss.SSS`, UTC. GRDB formats through a `DateFormatter`, a few
/// microseconds a date; a refresh writes three, so the rows on its path are written with this instead. The text
/// is the same byte for byte (a test holds it to GRDB's), so either writer's dates compare in SQL.
enum StoredDate {
    static func text(_ date: Date) -> DatabaseValue {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()  // to the nearest, as the formatter does
        // Outside four-digit years the formatter's rules (signs, padding) apply: hand those to it. The first bound
        // (about 1000 to 9999 AD) is checked before the conversion to `time_t`, which traps on what does not fit.
        guard (-30_610_224_000_000 ... 253_402_300_799_999).contains(milliseconds) else { return date.databaseValue }
        var seconds = time_t((milliseconds / 1000).rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil, (1000...9999).contains(Int(parts.tm_year) + 1900) else {
            return date.databaseValue
        }
        let fields: [(Int, Int, UInt8?)] = [
            (Int(parts.tm_year) + 1900, 4, UInt8(ascii: "-")), (Int(parts.tm_mon) + 1, 2, UInt8(ascii: "-")),
            (Int(parts.tm_mday), 2, UInt8(ascii: " ")), (Int(parts.tm_hour), 2, UInt8(ascii: ":")),
            (Int(parts.tm_min), 2, UInt8(ascii: ":")), (Int(parts.tm_sec), 2, UInt8(ascii: ".")),
            (Int(milliseconds - Double(seconds) * 1000), 3, nil),
        ]
        var text: [UInt8] = []
        text.reserveCapacity(23)
        for (value, width, separator) in fields {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 { text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10)); divisor /= 10 }
            if let separator { text.append(separator) }
        }
        return String(decoding: text, as: UTF8.self).databaseValue
    }
}
