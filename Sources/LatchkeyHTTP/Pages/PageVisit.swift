import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// One request to the hosted sign-in pages: the browser's CSRF cookie (made on its first visit), the visit's sealed
/// interaction when the request carried a good one, the caller, the language, and the posted form.
struct PageVisit: Sendable {
    var csrfCookie: String
    var newCSRFCookie: Bool
    var interaction: Interaction?
    var caller: CallerInfo
    var language: String
    var form: FormFields?
    /// The SSO cookie's value, if the browser sent one.
    var sessionCookie: String?
    /// This browser said "not now" to the passkey offer (a cookie, 30 days).
    var passkeyLater = false
    /// Cookies this answer sets.
    var cookies: [String] = []

    func field(_ name: String) -> String? { form?[name].flatMap { $0.isEmpty ? nil : $0 } }

    /// A 303 to `uri` carrying the cookies this answer sets, cached and referred nowhere.
    func seeOther(_ uri: String) -> Response {
        var headers: HTTPFields = [.location: uri, .cacheControl: "no-store", HTTPField.Name("Referrer-Policy")!: "no-referrer"]
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: .seeOther, headers: headers)
    }
}

/// The cookies the pages use. Over HTTPS they carry the `__Host-` prefix (Secure, Path=/, no Domain: no sibling
/// host can set or read them); both are HttpOnly and SameSite=Lax, so the SSO cookie rides the top-level
/// navigation from an app to `/authorize` and no cross-site post.
struct PageCookies: Sendable {
    let secure: Bool
    /// How long the SSO session's cookie lives (`openid.session_ttl_seconds`).
    var sessionSeconds = 0

    var csrfName: String { secure ? "__Host-latchkey_csrf" : "latchkey_csrf" }
    var sessionName: String { secure ? "__Host-latchkey_session" : "latchkey_session" }

    func set(_ name: String, _ value: String, maxAge: Int? = nil) -> String {
        var cookie = "\(name)=\(value); Path=/; HttpOnly; SameSite=Lax"
        if secure { cookie += "; Secure" }
        if let maxAge { cookie += "; Max-Age=\(maxAge)" }
        return cookie
    }

    func clear(_ name: String) -> String { set(name, "", maxAge: 0) }

    /// The SSO session's cookie, new or renewed.
    func session(_ value: String) -> String { set(sessionName, value, maxAge: sessionSeconds) }

    /// The sealed visit of a sign-in or link handed to an upstream issuer. Its answer may come back by a cross-site
    /// form post (Apple's): over HTTPS the cookie must be SameSite=None to ride it.
    var upstreamName: String { secure ? "__Host-latchkey_upstream" : "latchkey_upstream" }

    func upstream(_ sealed: String, maxAge: Int) -> String {
        secure ? "\(upstreamName)=\(sealed); Path=/; HttpOnly; Secure; SameSite=None; Max-Age=\(maxAge)" : set(upstreamName, sealed, maxAge: maxAge)
    }

    /// A cookie's value from the request (the first, when a browser sends several); nil when empty or longer than
    /// `limit`.
    static func read(_ name: String, from request: Request, limit: Int = 512) -> String? {
        for header in request.headers[values: .cookie] {
            if let value = read(name, fromHeader: header, limit: limit) { return value ?? nil }
        }
        return nil
    }

    /// The named pair's value in one `Cookie` header: nil when the header has no such pair, `.some(nil)` when its value
    /// is empty or too long. Read on the header's bytes (cookie names and the separators are ASCII): splitting it by
    /// `Character` and trimming with Foundation were most of a page request's cookie reading.
    static func read(_ name: String, fromHeader header: String, limit: Int) -> String?? {
        let bytes = header.utf8
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
            let pair = bytes[start..<end]
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")), equals > pair.startIndex, bytes.index(after: equals) < end,
               trimmed(pair[..<equals]).elementsEqual(name.utf8) {
                let value = trimmed(pair[bytes.index(after: equals)...])
                return value.isEmpty || value.count > limit ? .some(nil) : String(Substring(value))
            }
            start = end < bytes.endIndex ? bytes.index(after: end) : end
        }
        return nil
    }

    private static func trimmed(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }
}
