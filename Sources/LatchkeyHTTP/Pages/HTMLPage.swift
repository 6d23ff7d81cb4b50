import HTTPTypes
import Hummingbird

/// The headers every hosted page carries, and a plain page for errors raised before a page's route runs.
enum HTMLPage {
    static func response(status: HTTPResponse.Status, html: String) -> Response {
        Response(status: status, headers: [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("Content-Security-Policy")!: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
        ], body: .init(byteBuffer: .init(string: html)))
    }

    static func plain(status: HTTPResponse.Status, title: String, message: String) -> Response {
        response(status: status, html: """
            <!doctype html><html lang="en"><meta charset="utf-8"><title>\(escape(title))</title>
            <h1>\(escape(title))</h1><p>\(escape(message))</p></html>
            """)
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
