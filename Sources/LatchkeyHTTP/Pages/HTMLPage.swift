import HTTPTypes
import Hummingbird
import Mustache

/// The hosted pages' templates and the headers every page carries; also renders the HTML errors raised
/// before a page's route runs, so they look like the pages and are escaped by Mustache like them.
struct HTMLPages: Sendable {
    let templates: MustacheLibrary

    func render(_ name: String, _ status: HTTPResponse.Status, _ context: [String: Any]) -> Response {
        let html = templates.render(context, withTemplate: name) ?? "<!doctype html><title>Latchkey</title>"
        return Response(status: status, headers: [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("Content-Security-Policy")!: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
        ], body: .init(byteBuffer: .init(string: html)))
    }

    func error(_ status: HTTPResponse.Status, message: String) -> Response {
        render("message", status, ["title": status.code >= 500 ? "Something went wrong" : "Request not understood",
                                   "message": message, "isError": true])
    }
}
