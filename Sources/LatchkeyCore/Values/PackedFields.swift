import Foundation

/// A compact layout for values this server seals for itself (a page visit travels in every form and link of the
/// hosted pages and is opened on each of their requests): fields in a fixed order, lengths as 32-bit little-endian
/// counts, no names. JSONDecoder was most of opening a visit. Sealed boxes are authenticated, but reading still never
/// traps: anything malformed is nil.
enum PackedFields {
    struct Writer {
        private(set) var bytes: [UInt8]

        init(version: UInt8) { bytes = [version] }

        mutating func count(_ value: Int) {
            withUnsafeBytes(of: UInt32(clamping: value).littleEndian) { bytes.append(contentsOf: $0) }
        }

        mutating func string(_ value: String) { count(value.utf8.count); bytes.append(contentsOf: value.utf8) }

        mutating func data(_ value: Data) { count(value.count); bytes.append(contentsOf: value) }

        mutating func strings(_ values: [String]) { count(values.count); values.forEach { string($0) } }

        mutating func optional(_ value: String?) {
            bytes.append(value == nil ? 0 : 1)
            if let value { string(value) }
        }

        mutating func optional(_ value: Int?) {
            bytes.append(value == nil ? 0 : 1)
            if let value { withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) } }
        }

        /// Exactly, as its bit pattern.
        mutating func date(_ value: Date) {
            withUnsafeBytes(of: value.timeIntervalSinceReferenceDate.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
    }

    struct Reader {
        private let bytes: [UInt8]
        private var offset = 0

        /// A reader past the version byte, when `bytes` starts with `version`.
        init?(_ bytes: [UInt8], version: UInt8) {
            guard bytes.first == version else { return nil }
            self.bytes = bytes
            offset = 1
        }

        var atEnd: Bool { offset == bytes.count }

        private mutating func take(_ n: Int) -> ArraySlice<UInt8>? {
            guard n >= 0, n <= bytes.count - offset else { return nil }
            defer { offset += n }
            return bytes[offset..<offset + n]
        }

        private mutating func word(_ n: Int) -> UInt64? {
            guard let raw = take(n) else { return nil }
            return raw.reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }

        mutating func count() -> Int? { word(4).map { Int($0) } }

        mutating func string() -> String? {
            guard let n = count(), let raw = take(n) else { return nil }
            return String(decoding: raw, as: UTF8.self)
        }

        mutating func data() -> Data? {
            guard let n = count(), let raw = take(n) else { return nil }
            return Data(raw)
        }

        mutating func strings() -> [String]? {
            guard let n = count(), n <= bytes.count - offset else { return nil }
            var out: [String] = []
            for _ in 0..<n {
                guard let value = string() else { return nil }
                out.append(value)
            }
            return out
        }

        /// `.some(nil)` for an absent value, nil for malformed bytes.
        mutating func optionalString() -> String?? {
            guard let flag = take(1)?.first, flag <= 1 else { return nil }
            return flag == 0 ? .some(nil) : string().map { .some($0) }
        }

        mutating func optionalInt() -> Int?? {
            guard let flag = take(1)?.first, flag <= 1 else { return nil }
            return flag == 0 ? .some(nil) : word(8).map { .some(Int(Int64(bitPattern: $0))) }
        }

        mutating func date() -> Date? {
            word(8).map { Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0)) }
        }
    }
}
