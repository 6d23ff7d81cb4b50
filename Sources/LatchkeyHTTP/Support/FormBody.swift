import Hummingbird
import LatchkeyCore

/// An `application/x-www-form-urlencoded` request body as the native API receives it.
struct FormBody: Sendable {
    let values: [String: String]

    subscript(_ key: String) -> String? { values[key] }

    static let maxBrackets = 64

    /// Reads at most the context's upload limit (413 beyond it) and decodes with Hummingbird's form decoder.
    static func read(_ request: Request, context: LatchkeyRequestContext) async throws -> FormBody {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        // The decoder reads `a[b][c]` keys as nested maps, a cost that grows with the brackets; no field of ours
        // is nested, and a JSON value (attributes) needs a handful. Counted in one pass before decoding.
        guard buffer.readableBytesView.lazy.filter({ $0 == UInt8(ascii: "[") }).count <= Self.maxBrackets else {
            throw LatchkeyError.invalidParameter("body")
        }
        let text = String(buffer: buffer)
        if text.isEmpty { return FormBody(values: [:]) }
        do {
            return FormBody(values: try URLEncodedFormDecoder().decode([String: String].self, from: text))
        } catch {
            throw LatchkeyError.invalidParameter("body")
        }
    }
}
