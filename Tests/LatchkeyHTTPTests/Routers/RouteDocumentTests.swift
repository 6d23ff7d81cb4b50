import Foundation
import Hummingbird
@testable import LatchkeyCore
@testable import LatchkeyHTTP
import LatchkeyTestSupport
import Testing

/// The routers and the OpenAPI document (openapi/openapi.json, from scripts/openapi.py) name the same routes, both
/// ways: the document drives the 405 answers and schemathesis, so a route added to a router without the document,
/// or a documented route no router serves, fails here.
@Suite struct RouteDocumentTests {
    /// `/x/:id` and `/x/{id}` both as `/x/{}`.
    static func normalize(_ path: String) -> String {
        "/" + path.split(separator: "/").map { $0.hasPrefix(":") || $0.hasPrefix("{") ? "{}" : String($0) }.joined(separator: "/")
    }

    static var documentText: String {
        get throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent()
            return try String(contentsOf: root.appendingPathComponent("openapi/openapi.json"), encoding: .utf8)
        }
    }

    static func documented() throws -> Set<String> {
        let data = Data(try documentText.utf8)
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "options", "head"]
        return Set(paths.flatMap { path, item in
            item.keys.filter(methods.contains).map { "\($0.uppercased()) \(normalize(path))" }
        })
    }

    static func served(_ router: Router<LatchkeyRequestContext>) -> Set<String> {
        Set(router.routes.map { "\($0.method.rawValue) \(normalize($0.path.description))" })
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedRouteIsServed() async throws {
        // Every dialect on, as in the document: App Services and Parse apps, the testing mailbox, the admin API.
        let h = try await EngineHarness.make {
            $0.apps = [AppServicesApp(id: "a")]
            $0.parseApps = [ParseApp(id: "p")]
        }
        var options = ServerOptions(host: "127.0.0.1", port: 0, testingMailbox: TestingMailbox())
        options.testMode = TestModeOptions(clock: AdjustableTime(), config: .object([:]),  // and test mode's API and issuers
                                           issuers: try FakeIssuers(publicURL: "http://127.0.0.1", time: SystemTime()))
        options.openAPIDocument = try Self.documentText
        let publicRouter = LatchkeyServer.router(engine: h.engine, options: options)
        let adminRouter = AdminServer.router(engine: h.engine, options: AdminOptions(host: "127.0.0.1", port: 0, token: "t", metrics: { [] }))
        let served = Self.served(publicRouter).union(Self.served(adminRouter))
        let documented = try Self.documented()
        #expect(served.subtracting(documented).isEmpty, "served, not documented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented, not served: \(documented.subtracting(served).sorted())")
    }
}
