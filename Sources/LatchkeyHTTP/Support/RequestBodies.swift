import Foundation
import Hummingbird
import LatchkeyCore
import NIOCore

/// A body sent as `application/x-www-form-urlencoded` (the native API, the hosted reset form), read from its fields.
protocol FormEncodedBody {
    init(form: FormFields)
}
/// A body sent as one JSON object (App Services); an empty body reads as `{}`.
protocol JSONObjectBody: Decodable {
    /// The media type a request must name when it names one; nil reads JSON whatever the header says.
    static var mediaType: String? { get }
}

extension JSONObjectBody {
    static var mediaType: String? { "application/json" }
}

/// A body or field the dialect could not read; each dialect's error middleware answers it in its own shape.
struct MalformedRequest: Error, Equatable {
    /// What was malformed, in the native API's parameter words (`body`, `attributes`, `grant_type`), or the JSON
    /// field of the wrong type.
    let what: String
    /// What it should have been, when known ("a string").
    var expected: String? = nil
}

/// A body in a media type the endpoint does not read (a JSON body sent to a form endpoint, say): 415, naming the
/// type it takes. Left to the server-wide error renderer, which answers in the path's dialect.
struct UnsupportedMediaType: Error, Equatable {
    let expected: String
    let received: String

    var message: String { "This endpoint takes \(expected), not \(received)." }

    /// Throws when the request names a media type other than `expected` (parameters such as charset are fine).
    /// A request without a Content-Type is read as `expected`: curl and some SDKs leave it out.
    static func check(_ request: Request, expected: String) throws(UnsupportedMediaType) {
        guard let header = request.headers[.contentType] else { return }
        // Compared on bytes: every POST passes here, and Foundation's trimming cost 3 µs of each.
        let type = header.utf8.prefix { $0 != UInt8(ascii: ";") }
        var start = type.startIndex, end = type.endIndex
        while start < end, type[start] == 0x20 || type[start] == 0x09 { start = type.index(after: start) }
        while end > start, type[type.index(before: end)] == 0x20 || type[type.index(before: end)] == 0x09 { end = type.index(before: end) }
        let trimmed = type[start..<end]
        guard !trimmed.isEmpty, !trimmed.elementsEqual(expected.utf8, by: { Self.lowercase($0) == $1 }) else { return }
        throw UnsupportedMediaType(expected: expected, received: String(decoding: trimmed, as: UTF8.self).lowercased())
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
}

/// `request.decode(as:context:)` for JSON bodies. The body is read up to the context's upload limit (413 beyond it)
/// and checked for shape before a decoder sees it.
struct LatchkeyRequestDecoder: RequestDecoder {
    func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        let buffer = try await request.boundedBody(context)
        switch type {
        case is any JSONObjectBody.Type:
            if let expected = (type as? any JSONObjectBody.Type)?.mediaType { try UnsupportedMediaType.check(request, expected: expected) }
            let data = buffer.readableBytes == 0 ? Data("{}".utf8) : Data(buffer: buffer)
            guard JSONShape.isWithin(data, .request) else { throw MalformedRequest(what: "body") }
            do {
                return try JSONDecoder().decode(type, from: data)
            } catch DecodingError.typeMismatch(let expected, let context) where !context.codingPath.isEmpty {
                // A field of the wrong JSON type is named, with the type it takes.
                throw MalformedRequest(what: context.codingPath.map(\.stringValue).joined(separator: "."),
                                       expected: expected == String.self ? "a string" : expected is [Any].Type ? "an array" : "\(expected)")
            } catch {
                throw MalformedRequest(what: "body")
            }
        default:
            throw MalformedRequest(what: "body")
        }
    }
}

extension Request {
    /// A form body read up to the context's upload limit (413 beyond it).
    func decodeForm<T: FormEncodedBody>(as type: T.Type, context: some RequestContext) async throws -> T {
        try UnsupportedMediaType.check(self, expected: "application/x-www-form-urlencoded")
        return T(form: try FormFields(try await boundedBody(context)))
    }

    /// The body up to the context's upload limit. A `Content-Length` past it is refused (413) before a byte of the
    /// body is read, so a client sending megabytes learns at once instead of after uploading them.
    func boundedBody(_ context: some RequestContext) async throws -> ByteBuffer {
        if let announced = headers[.contentLength].flatMap(Int.init), announced > context.maxUploadSize {
            throw HTTPError(.contentTooLarge)
        }
        var request = self
        return try await request.collectBody(upTo: context.maxUploadSize)
    }
}
