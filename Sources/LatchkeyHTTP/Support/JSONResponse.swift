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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(body)) ?? Data("{}".utf8)
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store", HTTPField.Name("Pragma")!: "no-cache"]
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func ok(_ body: [String: JSONValue]) -> Response { make(.ok, body) }
}
