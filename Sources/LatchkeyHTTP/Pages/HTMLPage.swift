import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore

/// The hosted pages' templates, their words in each language and the headers every page carries; also renders the
/// HTML errors raised before a page's route runs, so they look like the pages and are escaped by Mustache like them.
struct HTMLPages: Sendable {
    let templates: MustacheLibrary
    /// Language -> key -> text (config/pages/<language>.strings).
    var strings: [String: [String: String]] = [:]
    var brand = PageBrand()
    /// Test mode: every page says so.
    var testMode = false
    /// No form-action: browsers apply it to every redirect a form post leads to, and a sign-in's post ends in a
    /// chain of them through origins the page cannot know (the app's callback and wherever it sends the user next,
    /// an upstream issuer, a second Latchkey). Every value on a page is escaped by Mustache; the one script is the
    /// pages' own (`/ui/passkeys.js`, for passkeys), from this origin, calling only this origin.
    var contentSecurityPolicy = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "frame-ancestors 'none'; base-uri 'none'"

    func render(_ name: String, _ status: HTTPResponse.Status, _ context: [String: Any], language: String = "en",
                cookies: [String] = []) -> Response {
        prepared(name, status, context, language: language, cookies: cookies).response
    }

    /// The page as bytes and headers, for answers written outside a route (the head guard).
    func prepared(_ name: String, _ status: HTTPResponse.Status, _ context: [String: Any], language: String = "en",
                  cookies: [String] = []) -> EdgeAnswer {
        var context = context
        context["t"] = strings[language] ?? strings["en"] ?? [:]
        context["lang"] = language
        if let brand = brand.templateContext { context["brand"] = brand }
        if testMode { context["testMode"] = true }
        let html = templates.render(context, withTemplate: name) ?? "<!doctype html><title>Latchkey</title>"
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff", HTTPField.Name("X-Frame-Options")!: "DENY",
            HTTPField.Name("Content-Security-Policy")!: contentSecurityPolicy,
        ]
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return EdgeAnswer(status: status, headers: headers, body: ByteBuffer(string: html))
    }

    func error(_ status: HTTPResponse.Status, message: String) -> Response { errorPage(status, message: message).response }

    func errorPage(_ status: HTTPResponse.Status, message: String) -> EdgeAnswer {
        prepared("message", status, ["title": status.code >= 500 ? "Something went wrong" : "Request not understood",
                                     "message": message, "isError": true])
    }

    /// A key of the pages' words in `language`, else in English (else the key, which a test catches).
    func text(_ key: String, _ language: String) -> String {
        strings[language]?[key] ?? strings["en"]?[key] ?? key
    }

    /// The language of a page that has no visit: the request's Accept-Language.
    func language(_ request: Request) -> String {
        language(uiLocales: nil, acceptLanguage: request.headers[.acceptLanguage])
    }

    /// The language to speak: the first of `ui_locales`, then of Accept-Language, that the pages have; else English.
    func language(uiLocales: String?, acceptLanguage: String?) -> String {
        let asked = (uiLocales ?? "").split(separator: " ").map(String.init)
            + (acceptLanguage ?? "").split(separator: ",").map { $0.split(separator: ";").first.map(String.init) ?? "" }
        for tag in asked {
            let primary = tag.trimmingCharacters(in: .whitespaces).lowercased().split(separator: "-").first.map(String.init) ?? ""
            if strings[primary] != nil { return primary }
        }
        return "en"
    }
}

/// The pages' words files (`<language>.strings`): `key = text` lines, `#` comments.
public enum PageStrings {
    public static func parse(_ text: String) -> [String: String] {
        var table: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            table[line[..<equals].trimmingCharacters(in: .whitespaces)] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return table
    }
}
