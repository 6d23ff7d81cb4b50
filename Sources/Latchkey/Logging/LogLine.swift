import Foundation
import Logging

/// A log line built as bytes: no Foundation formatting, no time-zone lookup (`localtime` reads /etc/localtime on
/// every call when TZ is unset), since a line is written for every request.
struct LogLine {
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }
    mutating func append(byte: UInt8) { bytes.append(byte) }

    /// UTC, to the second (`2026-11-26T09:17:37+0000`) or the millisecond (`…37.123Z`).
    mutating func appendTime(milliseconds: Bool) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var time = tm()
        gmtime_r(&seconds, &time)
        appendDigits(Int(time.tm_year) + 1900, 4); append(byte: UInt8(ascii: "-"))
        appendDigits(Int(time.tm_mon) + 1, 2); append(byte: UInt8(ascii: "-"))
        appendDigits(Int(time.tm_mday), 2); append(byte: UInt8(ascii: "T"))
        appendDigits(Int(time.tm_hour), 2); append(byte: UInt8(ascii: ":"))
        appendDigits(Int(time.tm_min), 2); append(byte: UInt8(ascii: ":"))
        appendDigits(Int(time.tm_sec), 2)
        if milliseconds {
            append(byte: UInt8(ascii: "."))
            appendDigits(Int(now.tv_nsec) / 1_000_000, 3)
            append(byte: UInt8(ascii: "Z"))
        } else {
            append("+0000")
        }
    }

    /// `0.25` for 250 µs: milliseconds with two decimals.
    mutating func appendMilliseconds(_ nanoseconds: UInt64) {
        let hundredths = Int(nanoseconds / 10_000)
        append(String(hundredths / 100))
        append(byte: UInt8(ascii: "."))
        appendDigits(hundredths % 100, 2)
    }

    private mutating func appendDigits(_ value: Int, _ width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    /// A JSON string literal.
    mutating func appendJSONString(_ text: String) {
        append(byte: UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0..<0x20:
                append("\\u00")
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(hex[Int(byte >> 4)]); bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        append(byte: UInt8(ascii: "\""))
    }
}

extension Logger.Metadata {
    /// The handler's metadata, then the provider's, then the event's, each overriding the one before, sorted by key.
    /// Hummingbird's own `hb.request.id` is written as `request_id`, the name the request log gives it, unless the
    /// client named the request (`client-request-id`), which then is `request_id`.
    static func merged(_ base: Logger.Metadata, _ provider: Logger.MetadataProvider?, _ event: Logger.Metadata?) -> [(key: String, value: Logger.Metadata.Value)] {
        let provided = provider?.get() ?? [:]
        let event = event ?? [:]
        var entries: [(key: String, value: Logger.Metadata.Value)] = []
        entries.reserveCapacity(base.count + provided.count + event.count)
        let named = base["request_id"] != nil || provided["request_id"] != nil || event["request_id"] != nil
        for entry in base where event[entry.key] == nil && provided[entry.key] == nil {
            if entry.key == "hb.request.id" {
                if !named { entries.append((key: "request_id", value: entry.value)) }
            } else {
                entries.append(entry)
            }
        }
        for entry in provided where event[entry.key] == nil { entries.append(entry) }
        for entry in event { entries.append(entry) }
        entries.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        return entries
    }
}
