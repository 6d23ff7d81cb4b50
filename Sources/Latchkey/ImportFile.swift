import CSV
import Foundation
import LatchkeyCore

/// The records of an export file, in order: JSON lines (what `mongoexport`, Auth0 and `latchkey export` write), a
/// JSON array (`mongoexport --jsonArray`, App Services), an object holding `results` (Parse's REST API) or `users`
/// (Firebase, a Keycloak realm), or CSV (Firebase's headerless columns, PostgreSQL's `COPY … CSV HEADER`). The file
/// is mapped, not read into memory, and each record is decoded on its own, so one bad record is reported by number
/// and the rest go on.
struct ImportFile {
    let path: String
    let data: Data

    /// One record at most this deep and this big (a line is an account, not a document tree).
    static let limits = JSONShape.Limits(maxDepth: 16, maxElements: 20_000)

    init(path: String, key: String) throws {
        self.path = path
        do { data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) } catch {
            throw StartupError(key: key, message: "cannot read \(path): \(error.localizedDescription)", exitCode: .noInput)
        }
    }

    /// About how many records the file holds, for progress: its lines when it is JSON lines, else 0 (unknown until
    /// the whole document is decoded).
    var recordEstimate: Int {
        guard let first = data.firstIndex(where: { !Self.isSpace($0) }), data[first] == UInt8(ascii: "{"), isJSONLines(startingAt: first)
        else { return 0 }
        return data.reduce(into: 0) { count, byte in if byte == UInt8(ascii: "\n") { count += 1 } } + (data.last == UInt8(ascii: "\n") ? 0 : 1)
    }

    /// Calls `body` with each record's number (its line in JSON lines, its position in an array) and the record or
    /// why it could not be read.
    func forEach<T: Decodable>(_ type: T.Type, _ body: (Int, Result<T, ImportLineError>) async throws -> Void) async throws {
        guard let first = data.firstIndex(where: { !Self.isSpace($0) }) else { return }
        if data[first] == UInt8(ascii: "{"), isJSONLines(startingAt: first) {
            // Line by line, as they are read: nothing but the current batch is held in memory.
            var number = 0
            var lineStart = data.startIndex
            while lineStart < data.endIndex {
                let end = data[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
                number += 1
                let line = data[lineStart..<end]
                if line.contains(where: { !Self.isSpace($0) }) { try await body(number, decodeLine(T.self, line, number: number)) }
                lineStart = end < data.endIndex ? data.index(after: end) : end
            }
            return
        }
        // One document: an array of records, or an object holding them under `results` or `users`. The records are
        // found by their bytes first (a cut-off file is refused whole), then each is decoded alone.
        let records: [Range<Int>]
        do { records = try JSONRecordScanner.records(in: data) } catch {
            throw unreadable(data[first] == UInt8(ascii: "[") ? "not a JSON array"
                             : "neither JSON lines, a JSON array nor an object with \"results\" or \"users\"")
        }
        for (index, range) in records.enumerated() {
            try await body(index + 1, decodeLine(T.self, data[range], number: index + 1))
        }
    }

    /// Whether the file is CSV rather than JSON: its first character opens neither an object nor an array.
    var isCSV: Bool {
        guard let first = data.firstIndex(where: { !Self.isSpace($0) }) else { return false }
        return data[first] != UInt8(ascii: "{") && data[first] != UInt8(ascii: "[")
    }

    /// Calls `body` with each CSV row's number (header not counted) and its cells, keyed by the header when
    /// `hasHeader`, else by position as `"0"`, `"1"`, …. Malformed quoting ends the file (it leaves no next row).
    func forEachCSVRow(hasHeader: Bool, _ body: (Int, [String], [String]?) async throws -> Void) async throws {
        let reader: CSVReader
        do { reader = try CSVReader(stream: InputStream(data: data), hasHeaderRow: hasHeader) } catch {
            throw unreadable("not CSV (\(error))")
        }
        var number = 0
        while let row = reader.next() {
            number += 1
            if row.count == 1, row[0].isEmpty { continue }
            try await body(number, row, reader.headerRow)
        }
        if let error = reader.error { throw unreadable("CSV unreadable after row \(number) (\(error))") }
    }

    /// JSON lines when the first line is a whole JSON object, and not a `{"results"|"users": […]}` document on one line.
    private func isJSONLines(startingAt start: Data.Index) -> Bool {
        let end = data[start...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: data[start..<end]) else { return false }
        return object["results"]?.arrayValue == nil && object["users"]?.arrayValue == nil
    }

    private func decodeLine<T: Decodable>(_ type: T.Type, _ line: Data, number: Int) -> Result<T, ImportLineError> {
        guard JSONShape.isWithin(line, Self.limits) else {
            return .failure(ImportLineError(line: number, reason: "nested deeper than 16 levels or more than 20000 values"))
        }
        do { return .success(try JSONDecoder().decode(T.self, from: line)) } catch {
            return .failure(ImportLineError(line: number, reason: "not a JSON object of the expected shape (\(Self.describe(error)))"))
        }
    }

    private func unreadable(_ what: String) -> StartupError {
        StartupError(key: path, message: "\(what); see docs/moving-to-latchkey.md", exitCode: .noInput)
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// A decoding error in a few words: which field and what was wrong, not Foundation's whole description.
    static func describe(_ error: Error) -> String {
        switch error as? DecodingError {
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .dataCorrupted(let context)?:
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        case .keyNotFound(let key, _)?: return "\(key.stringValue) missing"
        default: return "\(error)"
        }
    }
}
