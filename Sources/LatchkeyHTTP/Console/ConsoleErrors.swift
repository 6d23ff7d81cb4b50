import Foundation
import Hummingbird
import HTTPTypes
import LatchkeyCore
import Logging
import NIOHTTP1

/// The console's answers to what went wrong, as pages: a missing session is a redirect to the sign-in page, a
/// missing CSRF token a 403, an engine refusal its admin API status with the same cause in the page's language.
struct ConsoleErrors: Sendable {
    let pages: HTMLPages

    /// The admin listener's surface table decides, after the router's normalisation (`//console/x` is a console path).
    static func handles(_ request: Request) -> Bool {
        Surface.adminSurface(path: request.uri.path) == .console
    }

    func response(for error: any Error, to request: Request, logger: Logger) -> Response {
        let language = pages.language(uiLocales: nil, acceptLanguage: request.headers[.acceptLanguage])
        let words = pages.strings[language] ?? [:]
        func message(_ status: HTTPResponse.Status, _ key: String, _ fallback: String? = nil, headers: HTTPFields = [:]) -> Response {
            var page = pages.render("message", status, ["title": words["error_title"] ?? "Not done", "message": words[key] ?? fallback ?? key,
                                                        "isError": true, "back": "/console/"], language: language)
            page.headers.append(contentsOf: headers)
            return page
        }
        if let failure = AdminFailure(error) {
            return message(failure.status, "error_\(failure.code)", failure.description, headers: failure.headers)
        }
        switch error {
        case let error as ConsoleSignInRequired:
            let next = error.next.flatMap { Console.safeNext($0) }
            return Console.redirect("/console/sign-in" + (next.map { "?next=" + (Self.escape($0)) } ?? ""))
        case is ConsoleCSRFRefused:
            return message(.forbidden, "error_csrf")
        case let error as ConsoleBadInput:
            return message(.badRequest, error.message, error.message)
        case is MalformedRequest:
            return message(.badRequest, "error_form")
        case is HTTPParserError:
            // Broken body framing (a bad chunk, an unknown transfer coding, a body cut short): the client's mistake.
            return message(.badRequest, "error_form")
        case let error as UnsupportedMediaType:
            return message(.unsupportedMediaType, error.message, error.message)
        case let error as HTTPError where error.status == .notFound:
            return message(.notFound, "error_not_found")
        case let error as HTTPError:
            return message(error.status, error.body ?? error.status.reasonPhrase, error.body ?? error.status.reasonPhrase)
        case let error as HTTPResponseError:
            return message(error.status, error.status.reasonPhrase, error.status.reasonPhrase)
        default:
            logger.error("unhandled console error", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            return message(.internalServerError, "error_server")
        }
    }

    /// The path for the `next` query parameter (it is a console path already: only `?`, `&`, `=`, `%`, `+` and `#` need it).
    static func escape(_ path: String) -> String {
        path.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "/-._~"))) ?? "/console/"
    }
}
