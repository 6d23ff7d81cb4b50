import HTTPTypes
import LatchkeyCore

/// The public path templates and the methods served at each, read from the OpenAPI document as this deployment
/// serves it. Hummingbird's router answers 404 for an unrouted method on an existing path; with this table the
/// error middleware answers 405 and the `Allow` header RFC 9110 §15.5.6 requires instead.
struct RouteTable: Sendable {
    private struct Route: Sendable {
        /// nil stands for a `{parameter}` segment, which matches any one non-empty segment.
        let segments: [String?]
        let methods: [String]
        var literals: Int { segments.count { $0 != nil } }
    }

    private static let methodKeys: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
    private let table: Deferred<[Route]>
    private var routes: [Route] { table.value }

    /// The document's path items (template to operations by method) whose template `including` accepts.
    init(pathItems: [String: JSONValue], including: (String) -> Bool) {
        let routes = Self.routes(pathItems, including: including)
        table = Deferred { routes }
    }

    /// The same from path items made when a route is first looked up.
    init(deferred pathItems: @escaping @Sendable () -> [String: JSONValue], including: @escaping @Sendable (String) -> Bool) {
        table = Deferred { Self.routes(pathItems(), including: including) }
    }

    /// Makes a deferred table now, off the caller's path: start-up does not wait on it, and the first unknown path
    /// does not pay for it either.
    func prepareInBackground() {
        Task.detached(priority: .background) { [table] in _ = table.value }
    }

    private static func routes(_ pathItems: [String: JSONValue], including: (String) -> Bool) -> [Route] {
        pathItems.compactMap { template, item in
            guard including(template), case .object(let operations) = item else { return nil }
            return Route(segments: template.split(separator: "/").map { $0.hasPrefix("{") ? nil : String($0) },
                         methods: operations.keys.filter { Self.methodKeys.contains($0) }.map { $0.uppercased() }.sorted())
        }
    }

    static let empty = RouteTable(pathItems: [:]) { _ in false }

    /// The `Allow` value for a request the router found no route for: the methods of the path's template when the
    /// path exists but does not serve `method` (answer 405), nil when no template matches it (answer 404).
    func allowHeader(path: String, method: HTTPRequest.Method) -> String? {
        guard let allowed = methods(for: path), !allowed.contains(method.rawValue) else { return nil }
        return allowed.joined(separator: ", ")
    }

    /// The methods of the template that matches `path`, preferring literal segments over parameters as the router
    /// does; nil when no template matches.
    private func methods(for path: String) -> [String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let best = routes.filter { route in
            route.segments.count == parts.count
                && zip(route.segments, parts).allSatisfy { segment, part in segment.map { $0 == part } ?? !part.isEmpty }
        }.max { $0.literals < $1.literals }
        return best?.methods
    }
}
