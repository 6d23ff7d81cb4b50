import Foundation
import Hummingbird
import LatchkeyCore
import NIOCore

/// A body sent as `application/x-www-form-urlencoded` (the native API, the hosted reset form), read from its fields.
protocol FormEncodedBody {
    init(form: FormFields)
}
/// A body sent as one JSON object (App Services); an empty body reads as `{}`.
protocol JSONObjectBody: Decodable {}

/// A body or field the dialect could not read; each dialect's error middleware answers it in its own shape.
struct MalformedRequest: Error, Equatable {
    /// What was malformed, in the native API's parameter words (`body`, `attributes`, `grant_type`).
    let what: String
}

/// `request.decode(as:context:)` for JSON bodies. The body is read up to the context's upload limit (413 beyond it)
/// and checked for shape before a decoder sees it.
struct LatchkeyRequestDecoder: RequestDecoder {
    func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        switch type {
        case is any JSONObjectBody.Type:
            guard let body = JSONValue.decodeUntrusted(type, from: buffer.readableBytes == 0 ? Data("{}".utf8) : Data(buffer: buffer)) else {
                throw MalformedRequest(what: "body")
            }
            return body
        default:
            throw MalformedRequest(what: "body")
        }
    }
}

extension Request {
    /// A form body read up to the context's upload limit (413 beyond it).
    func decodeForm<T: FormEncodedBody>(as type: T.Type, context: some RequestContext) async throws -> T {
        var request = self
        return T(form: try FormFields(try await request.collectBody(upTo: context.maxUploadSize)))
    }
}
