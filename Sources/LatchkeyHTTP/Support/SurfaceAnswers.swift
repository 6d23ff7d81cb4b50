import HTTPTypes
import Hummingbird
import LatchkeyCore
import NIOCore

/// An answer as status, headers and bytes: a route returns it as a `Response`; the head guard, which answers before
/// any route and below Hummingbird, writes the same bytes as raw response parts.
struct EdgeAnswer: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer

    var response: Response { Response(status: status, headers: headers, body: .init(byteBuffer: body)) }
}

/// How one listener answers what no handler answered, in the shape of the request's surface (`Surface`). Each
/// listener has one: the routers' error renderers and the head guard ask the same table and the same shapes.
struct SurfaceAnswers: Sendable {
    private let classify: @Sendable (String) -> Surface
    /// The pages an HTML surface renders its errors with: the hosted pages' on the public listener, the console's on
    /// the admin listener (nil: the console is off, and its paths answer as the admin API).
    private let pages: HTMLPages?

    static func publicListener(pages: HTMLPages, parseMount: String?) -> SurfaceAnswers {
        SurfaceAnswers(classify: { Surface.publicSurface(path: $0, parseMount: parseMount) }, pages: pages)
    }

    static func adminListener(consolePages: HTMLPages?) -> SurfaceAnswers {
        SurfaceAnswers(classify: { path in
            let surface = Surface.adminSurface(path: path)
            return surface == .console && consolePages == nil ? .admin : surface
        }, pages: consolePages)
    }

    func surface(of path: String) -> Surface { classify(path) }

    /// An error of `status` saying `message`, in `surface`'s shape; `language` picks the pages' words.
    func answer(_ surface: Surface, _ status: HTTPResponse.Status, _ message: String, language: String = "en") -> EdgeAnswer {
        switch surface {
        case .native, .oauth:
            let code = status == .contentTooLarge ? "request_too_large" : status == .notFound ? "not_found"
                : status.code >= 500 ? "server_error" : "invalid_request"
            return JSONResponse.prepared(status, value: .object(["error": .string(code), "error_description": .string(message)]))
        case .admin:
            let code = status == .notFound ? "not_found" : status.code >= 500 ? "server_error" : "invalid_request"
            return JSONResponse.prepared(status, value: .object(["error": .string(code), "error_description": .string(message)]))
        case .appServices:
            let code = status == .notFound ? "NotFound" : status.code >= 500 ? "InternalServerError" : "BadRequest"
            return JSONResponse.prepared(status, value: .object(["error": .string(message), "error_code": .string(code)]))
        case .parse:
            let error = status == .contentTooLarge ? ParseError(116, "The object is too large.", status: status)
                : status.code >= 500 ? ParseError(1, "Internal server error.", status: status)
                : status == .notFound || status == .methodNotAllowed ? ParseError(107, "cannot route", status: status)
                : ParseError(107, message, status: status)
            return error.prepared
        case .pages:
            guard let pages else { return answer(.native, status, message) }
            return pages.errorPage(status, message: message)
        case .console:
            guard let pages else { return answer(.admin, status, message) }
            let words = pages.strings[language] ?? pages.strings["en"] ?? [:]
            return pages.prepared("message", status, ["title": words["error_title"] ?? "Not done", "message": message, "isError": true,
                                                      "back": "/console/"], language: language)
        }
    }

    func answer(path: String, _ status: HTTPResponse.Status, _ message: String, language: String = "en") -> EdgeAnswer {
        answer(surface(of: path), status, message, language: language)
    }
}
