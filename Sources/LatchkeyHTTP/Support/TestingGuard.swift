import Foundation
import HTTPTypes
import Hummingbird

/// The testing API answers only the test suite on this machine: a `Host` that is loopback or the `public_url`'s
/// (DNS rebinding gives a hostile page the attacker's name), and a body only as `application/json` (a cross-site
/// form or `text/plain` POST needs no preflight; a JSON one does, and this API answers no preflight).
struct TestingGuard: RouterMiddleware {
    typealias Context = LatchkeyRequestContext
    let publicHost: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let host = request.head.authority.flatMap(Self.host(of:)), Self.isLoopback(host) || host == publicHost else {
            return Self.refuse(.misdirectedRequest, "the testing API answers only a loopback Host or the public_url's")
        }
        if request.method != .get, request.method != .head, request.method != .delete || request.headers[.contentType] != nil,
           request.headers[.contentType]?.lowercased().hasPrefix("application/json") != true {
            return Self.refuse(.unsupportedMediaType, "the testing API takes its bodies as Content-Type: application/json only")
        }
        return try await next(request, context)
    }

    /// The host of a `Host` value or URL, lower-cased, without its port or brackets.
    static func host(of authority: String) -> String? {
        var text = Substring(authority.lowercased())
        if let scheme = text.range(of: "://") { text = text[scheme.upperBound...] }
        if let slash = text.firstIndex(of: "/") { text = text[..<slash] }
        if text.hasPrefix("[") { return text.firstIndex(of: "]").map { String(text[text.index(after: text.startIndex)..<$0]) } }
        if let colon = text.lastIndex(of: ":") { text = text[..<colon] }
        return text.isEmpty ? nil : String(text)
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    private static func refuse(_ status: HTTPResponse.Status, _ description: String) -> Response {
        JSONResponse.make(status, ["error": "invalid_request", "error_description": .string(description)])
    }
}
