import HTTPTypes
import Hummingbird

/// One row of a route table: the method, the path, and the named handler that serves it.
struct NamedRoute: Sendable {
    typealias Handler = @Sendable (Request, LatchkeyRequestContext) async throws -> Response
    let method: HTTPRequest.Method
    let path: String
    let handler: Handler

    init(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping Handler) {
        self.method = method; self.path = path; self.handler = handler
    }
}

extension RouterMethods where Context == LatchkeyRequestContext {
    /// Registers a table of named handlers, each path after `prefix`.
    func add(_ routes: [NamedRoute], under prefix: String = "") {
        for route in routes { on(RouterPath(prefix + route.path), method: route.method, use: route.handler) }
    }
}
