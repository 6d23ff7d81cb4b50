import Foundation

/// Finds the records of a one-document export (a JSON array, or an object holding one under `results` or `users`)
/// by their byte ranges, without decoding anything else: a million-user Firebase or Keycloak file is then decoded
/// one record at a time, as JSON lines are, instead of as one tree several times the file's size. The scan checks
/// the document's structure (brackets, strings, escapes) so a cut-off file is refused before a record is imported;
/// each record's own JSON is checked when it is decoded.
struct JSONRecordScanner {
    enum Failure: Error, Equatable {
        case malformed
        case noRecords
    }

    /// The ranges of the records, in order.
    static func records(in data: Data, names: Set<String> = ["results", "users"]) throws -> [Range<Int>] {
        try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let scanner = JSONRecordScanner(bytes: bytes)
            var index = scanner.space(0)
            guard index < bytes.count else { throw Failure.malformed }
            var ranges: [Range<Int>]
            if bytes[index] == UInt8(ascii: "[") {
                (ranges, index) = try scanner.elements(at: index)
            } else if bytes[index] == UInt8(ascii: "{") {
                var found: [Range<Int>]?
                index = try scanner.members(at: index) { name, valueStart in
                    guard found == nil, names.contains(name), bytes[valueStart] == UInt8(ascii: "[") else { return nil }
                    let (elements, end) = try scanner.elements(at: valueStart)
                    found = elements
                    return end
                }
                guard let found else { throw Failure.noRecords }
                ranges = found
            } else {
                throw Failure.malformed
            }
            guard scanner.space(index) == bytes.count else { throw Failure.malformed }
            return ranges.map { $0.lowerBound + data.startIndex ..< $0.upperBound + data.startIndex }
        }
    }

    let bytes: UnsafeBufferPointer<UInt8>

    private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    func space(_ start: Int) -> Int {
        var index = start
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        return index
    }

    /// The array's element ranges and the index after its `]`.
    func elements(at start: Int) throws -> ([Range<Int>], Int) {
        var ranges: [Range<Int>] = []
        var index = space(start + 1)
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { return ([], index + 1) }
        while true {
            let end = try value(at: index)
            ranges.append(index..<end)
            index = space(end)
            guard index < bytes.count else { throw Failure.malformed }
            if bytes[index] == UInt8(ascii: "]") { return (ranges, index + 1) }
            guard bytes[index] == UInt8(ascii: ",") else { throw Failure.malformed }
            index = space(index + 1)
        }
    }

    /// Walks an object's members; `visit` may consume a member's value itself (answering the index after it).
    func members(at start: Int, _ visit: (String, Int) throws -> Int?) throws -> Int {
        var index = space(start + 1)
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { return index + 1 }
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Failure.malformed }
            let keyEnd = try string(at: index)
            // Member names that matter here are plain ASCII: no unescaping needed to compare them.
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<(keyEnd - 1)]), as: UTF8.self)
            index = space(keyEnd)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw Failure.malformed }
            index = space(index + 1)
            guard index < bytes.count else { throw Failure.malformed }
            index = try visit(name, index) ?? value(at: index)
            index = space(index)
            guard index < bytes.count else { throw Failure.malformed }
            if bytes[index] == UInt8(ascii: "}") { return index + 1 }
            guard bytes[index] == UInt8(ascii: ",") else { throw Failure.malformed }
            index = space(index + 1)
        }
    }

    /// The index after the value starting at `start`.
    func value(at start: Int) throws -> Int {
        guard start < bytes.count else { throw Failure.malformed }
        switch bytes[start] {
        case UInt8(ascii: "\""): return try string(at: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // Nested containers are only balanced here; their contents are checked when the record is decoded.
            var depth = 0, index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""): index = try string(at: index); continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
                index += 1
            }
            throw Failure.malformed
        default:
            var index = start
            while index < bytes.count, !isSpace(bytes[index]), ![UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")].contains(bytes[index]) {
                index += 1
            }
            guard index > start else { throw Failure.malformed }
            return index
        }
    }

    /// The index after the string starting at `start` (its opening quote).
    func string(at start: Int) throws -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        throw Failure.malformed
    }
}
