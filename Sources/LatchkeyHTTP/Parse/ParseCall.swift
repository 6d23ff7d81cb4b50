import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// A body that is one JSON object whatever its Content-Type (ParseSwift sends `application/json` even on GET).
struct ParseBody: JSONObjectBody, Sendable {
    /// Parse's JS SDK posts JSON as `text/plain` (no CORS preflight), as Parse Server allows: any type is read.
    static var mediaType: String? { nil }

    var fields: [String: JSONValue]

    init(from decoder: any Decoder) throws {
        fields = try decoder.singleValueContainer().decode([String: JSONValue].self)
    }
}

/// What every Parse call carries, read from the headers (or the JS SDK's `_ApplicationId`-style body fields):
/// the app, whether the caller holds its master key, the session token and installation id.
struct ParseCall: Sendable {
    let app: ParseApp
    let isMaster: Bool
    let sessionToken: String?
    let installationId: String?
    /// The body without any underscore field: those are the SDKs' credentials and envelope (`_MasterKey`,
    /// `_RESTAPIKey`, `_method`, ...), never a client's data, so none reaches an engine call or a cloud function.
    let body: [String: JSONValue]
    let caller: CallerInfo
    /// The JS SDK's `_method`: a POST that stands for a GET, PUT or DELETE.
    let methodOverride: HTTPRequest.Method?

    /// Nil when the caller may not use the app (answered 403 `{"error":"unauthorized"}`).
    static func read(_ request: Request, context: LatchkeyRequestContext, engine: any ParseSurface, masterKeyIPs: Set<String>,
                     clientAddress: ClientAddress) async throws -> ParseCall? {
        // Only POST and PUT bodies are read: a GET or DELETE is answered from its headers and query alone.
        let fields = request.method == .post || request.method == .put ? try await request.decode(as: ParseBody.self, context: context).fields : [:]
        func value(_ header: String, _ bodyKey: String) -> String? {
            if let text = request.headers[HTTPField.Name(header)!], !text.isEmpty { return text }
            if case .string(let text)? = fields[bodyKey], !text.isEmpty { return text }
            return nil
        }
        guard let app = try? engine.requireParseApp(value("X-Parse-Application-Id", "_ApplicationId")) else { return nil }
        let caller = clientAddress.caller(request, context: context, clientId: app.id)
        var isMaster = false
        if let key = value("X-Parse-Master-Key", "_MasterKey") {
            guard let master = app.masterKey, Digest.sameSecret(key, master),
                  masterKeyIPs.contains(caller.ip ?? "") else { return nil }
            isMaster = true
        }
        if let clientKey = app.clientKey, !isMaster {
            let given = value("X-Parse-Client-Key", "_ClientKey") ?? value("X-Parse-JavaScript-Key", "_JavaScriptKey")
                ?? value("X-Parse-REST-API-Key", "_RESTAPIKey")
            guard let given, Digest.sameSecret(given, clientKey) else { return nil }
        }
        return ParseCall(app: app, isMaster: isMaster, sessionToken: value("X-Parse-Session-Token", "_SessionToken"),
                         installationId: value("X-Parse-Installation-Id", "_InstallationId"),
                         body: fields.filter { !$0.key.hasPrefix("_") }, caller: caller,
                         methodOverride: fields["_method"]?.stringValue.flatMap { HTTPRequest.Method($0.uppercased()) })
    }

    func string(_ key: String) throws -> String? {
        switch body[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        // A credential of another JSON type is answered like a bad value of that credential.
        default:
            if key == "email" { throw ParseError(125, "Email address format is invalid: email must be a string.") }
            throw ParseError(key == "password" ? .missing(.password) : .invalidUsername)
        }
    }
}
