import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import NIOCore

/// JSON responses. Everything Latchkey answers carries `no-store`: bodies hold tokens, codes or personal data.
enum JSONResponse {
    static func make(_ status: HTTPResponse.Status, _ body: [String: JSONValue], headers extra: HTTPFields = [:]) -> Response {
        make(status, value: .object(body), headers: extra)
    }

    /// Any JSON value as the body (Parse answers some calls with a bare string).
    static func make(_ status: HTTPResponse.Status, value body: JSONValue, headers extra: HTTPFields = [:]) -> Response {
        prepared(status, value: body, headers: extra).response
    }

    /// The answer as bytes and headers, for answers written outside a route (the head guard).
    static func prepared(_ status: HTTPResponse.Status, value body: JSONValue, headers extra: HTTPFields = [:]) -> EdgeAnswer {
        var headers = standardHeaders
        headers.append(contentsOf: extra)
        return EdgeAnswer(status: status, headers: headers, body: encode(body))
    }

    private static let standardHeaders: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store",
                                                      HTTPField.Name("Pragma")!: "no-cache", .xContentTypeOptions: "nosniff"]

    private static func encode(_ body: JSONValue) -> ByteBuffer {
        ByteBuffer(bytes: JSONWriter.bytes(body))
    }

    /// A document that does not change while the server runs (discovery, JWKS), encoded once: answering it then
    /// costs what answering `/health/live` costs. ByteBuffer is copy-on-write, so every response shares the bytes.
    struct Prepared: Sendable {
        let body: ByteBuffer

        init(_ document: [String: JSONValue]) { body = JSONResponse.encode(.object(document)) }

        func response() -> Response { Response(status: .ok, headers: JSONResponse.standardHeaders, body: .init(byteBuffer: body)) }
    }

    static func ok(_ body: [String: JSONValue]) -> Response { make(.ok, body) }
}
