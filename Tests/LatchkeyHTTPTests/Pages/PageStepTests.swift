import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LatchkeyCore
import NIOCore
import Testing

/// The hosted pages' step sequence through the router: each post answers the page of the step the engine names, the
/// visit (with the flow's token) sealed in it, and the last step redirects to the app with a code.
@Suite struct PageStepTests {
    /// RFC 7636's example S256 challenge.
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    @Test func aPasswordSignInIsOneFormPostEndingAtTheAppWithACode() async throws {
        let app = try await RouterHarness.application()
        try await app.test(.router) { client in
            let email = "pages-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let (registered, _, _) = try await client.json("/api/client/v2.0/app/auto-app/auth/providers/local-userpass/register",
                                                           #"{"email": "\#(email)", "password": "correct horse battery"}"#)
            #expect(registered == .created)
            var visit = try await PageVisitor.start(client)
            let wrong = try await visit.post(client, "/ui/sign-in", ["email": email, "password": "not the password", "method": "password"])
            #expect(wrong.status == .badRequest && wrong.body.contains("role=\"alert\""))
            let signedIn = try await visit.post(client, "/ui/sign-in", ["email": email, "password": "correct horse battery", "method": "password"])
            #expect(signedIn.status == .seeOther)
            let location = signedIn.headers[.location] ?? ""
            #expect(location.hasPrefix(RouterHarness.pagesCallback + "?") && location.contains("code=") && location.contains("state=st"))
        }
    }

    @Test func aCodeToAnAddressWithoutAnAccountIsTheSamePageAndNoCodeWorks() async throws {
        let app = try await RouterHarness.application()
        try await app.test(.router) { client in
            let masked = EmailAddress.mask("nobody-here@example.com")
            var visit = try await PageVisitor.start(client)
            let sent = try await visit.post(client, "/ui/sign-in", ["email": "nobody-here@example.com", "method": "code"])
            #expect(sent.status == .ok && sent.body.contains(masked) && sent.body.contains("action=\"/ui/code\""))
            let resent = try await visit.post(client, "/ui/code/resend", [:])
            #expect(resent.status == .ok && resent.body.contains(masked))
            let refused = try await visit.post(client, "/ui/code", ["code": "12345678"])
            #expect(refused.status == .badRequest && refused.body.contains(masked))
        }
    }
}

/// One browser at the hosted pages: its CSRF cookie, and the form fields of the page it is on.
struct PageVisitor {
    var cookie: String
    var fields: [String: String]

    struct Answer { var status: HTTPResponse.Status; var headers: HTTPFields; var body: String }

    static func start(_ client: some TestClientProtocol) async throws -> PageVisitor {
        let query = ["client_id": RouterHarness.pagesClient, "redirect_uri": RouterHarness.pagesCallback, "response_type": "code",
                     "scope": "openid", "state": "st", "code_challenge": PageStepTests.challenge, "code_challenge_method": "S256"]
        let uri = "/oauth2/v2.0/authorize?" + query.map { "\($0.key)=\(Self.encode($0.value))" }.joined(separator: "&")
        let page = try await client.execute(uri: uri, method: .get) { Answer(status: $0.status, headers: $0.headers, body: String(buffer: $0.body)) }
        #expect(page.status == .ok)
        let setCookie = page.headers[values: .setCookie].first { $0.hasPrefix("latchkey_csrf=") } ?? ""
        return PageVisitor(cookie: String(setCookie.prefix { $0 != ";" }), fields: Self.hiddenFields(page.body))
    }

    /// Posts the page's form with `extra`; the next page's hidden fields (the visit sealed anew) are kept.
    mutating func post(_ client: some TestClientProtocol, _ path: String, _ extra: [String: String]) async throws -> Answer {
        let form = fields.merging(extra) { _, new in new }.map { "\($0.key)=\(Self.encode($0.value))" }.joined(separator: "&")
        let answer = try await client.execute(uri: path, method: .post,
                                              headers: [.contentType: "application/x-www-form-urlencoded", .cookie: cookie],
                                              body: ByteBuffer(string: form)) {
            Answer(status: $0.status, headers: $0.headers, body: String(buffer: $0.body))
        }
        let next = Self.hiddenFields(answer.body)
        if next["interaction"] != nil { fields = next }
        return answer
    }

    static func hiddenFields(_ html: String) -> [String: String] {
        var fields: [String: String] = [:]
        let pattern = try! NSRegularExpression(pattern: #"<input type="hidden" name="([^"]+)" value="([^"]*)""#)
        for match in pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            guard let name = Range(match.range(at: 1), in: html), let value = Range(match.range(at: 2), in: html) else { continue }
            fields[String(html[name])] = String(html[value]).replacingOccurrences(of: "&amp;", with: "&")
        }
        return fields
    }

    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? value
    }
}
