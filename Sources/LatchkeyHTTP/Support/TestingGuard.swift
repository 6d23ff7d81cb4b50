import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The testing API answers only the test suite on this machine: a `Host` that is loopback or the `public_url`'s
/// (DNS rebinding gives a hostile page the attacker's name), and a body only as `application/json` (a cross-site
/// form, `text/plain` or bodiless POST needs no preflight; a JSON one does, and this API answers no preflight).
/// The stand-in issuers' authorize and token endpoints take forms, as a real issuer's do, behind the same `Host` rule.
struct TestingGuard: RouterMiddleware {
    typealias Context = LatchkeyRequestContext
    let publicHost: String?
    var formsToo = false

    /// The guard for test mode's `config` (its `base_url` names the public host).
    init(config: JSONValue, formsToo: Bool = false) {
        if case .object(let fields) = config, case .string(let base)? = fields["base_url"] { publicHost = Self.host(of: base) } else { publicHost = nil }
        self.formsToo = formsToo
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let host = request.head.authority.flatMap(Self.host(of:)), Self.isLoopback(host) || host == publicHost else {
            return Self.refuse(.misdirectedRequest, "the testing API answers only a loopback Host or the public_url's")
        }
        let type = request.headers[.contentType]?.lowercased() ?? ""
        if request.method != .get, request.method != .head, request.method != .delete || !type.isEmpty,
           !type.hasPrefix("application/json"), !formsToo || !type.hasPrefix("application/x-www-form-urlencoded") {
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
