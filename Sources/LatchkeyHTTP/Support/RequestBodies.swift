import Foundation
import Hummingbird
import LatchkeyCore
import NIOCore

/// A body sent as `application/x-www-form-urlencoded` (the native API, the hosted reset form).
protocol FormEncodedBody: Decodable {}
/// A body sent as one JSON object (App Services); an empty body reads as `{}`.
protocol JSONObjectBody: Decodable {}

/// A body or field the dialect could not read; each dialect's error middleware answers it in its own shape.
struct MalformedRequest: Error, Equatable {
    /// What was malformed, in the native API's parameter words (`body`, `attributes`, `grant_type`).
    let what: String
}

/// `request.decode(as:context:)` for Latchkey's two body encodings. The body is read up to the context's upload
/// limit (413 beyond it) and checked for shape before a decoder sees it.
struct LatchkeyRequestDecoder: RequestDecoder {
    /// The form decoder reads `a[b][c]` keys as nested maps, a cost that grows with the brackets; no field of ours is
    /// nested, and a JSON value (attributes) needs a handful. Counted in one pass before decoding.
    static let maxBrackets = 64

    func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        switch type {
        case is any FormEncodedBody.Type: return try Self.form(type, buffer)
        case is any JSONObjectBody.Type:
            guard let body = JSONValue.decodeUntrusted(type, from: buffer.readableBytes == 0 ? Data("{}".utf8) : Data(buffer: buffer)) else {
                throw MalformedRequest(what: "body")
            }
            return body
        default:
            throw MalformedRequest(what: "body")
        }
    }

    private static func form<T: Decodable>(_ type: T.Type, _ buffer: ByteBuffer) throws -> T {
        guard buffer.readableBytesView.lazy.filter({ $0 == UInt8(ascii: "[") }).count <= maxBrackets else {
            throw MalformedRequest(what: "body")
        }
        do { return try URLEncodedFormDecoder().decode(type, from: String(buffer: buffer)) } catch {
            throw MalformedRequest(what: "body")
        }
    }
}
