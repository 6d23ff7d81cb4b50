import Foundation
import LatchkeyCore
import LatchkeyTestSupport
import Testing

/// Each router holds the engine as its surface's protocol (`any ParseSurface`, ...), so the compiler keeps it to that
/// surface's use cases. Only the composition roots, which build the routers, hold the engine itself.
@Suite struct SurfaceBoundaryTests {
    static let compositionRoots: Set<String> = ["LatchkeyServer.swift", "AdminServer.swift"]

    @Test func onlyTheCompositionRootsHoldTheWholeEngine() throws {
        let folder = EngineHarness.repositoryRoot + "/Sources/LatchkeyHTTP"
        let files = try #require(FileManager.default.enumerator(atPath: folder)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 40)
        var holders: [String] = []
        for file in files {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            // A stored property, parameter or closure argument of the engine's own type.
            if text.range(of: #"(engine|_): LatchkeyEngine\b|\(LatchkeyEngine,"#, options: .regularExpression) != nil {
                holders.append((file as NSString).lastPathComponent)
            }
        }
        #expect(Set(holders) == Self.compositionRoots, "\(holders.sorted())")
    }

    /// The engine is the kernel and the composition root, not a surface: each surface is its own service, so passing
    /// the engine where a router wants its surface does not compile, and no service answers for another's surface.
    @Test func theEngineIsNoSurfaceAndEachServiceIsOnlyItsOwn() async throws {
        let h = try await EngineHarness.make()
        let engine: Any = h.engine
        #expect(!(engine is any NativeAuthSurface) && !(engine is any PagesSurface) && !(engine is any AppServicesSurface))
        #expect(!(engine is any ParseSurface) && !(engine is any OperatorSurface) && !(engine is any MailedLinkSurface))
        let native: Any = h.nativeAuthService, pages: Any = h.pagesService, apps: Any = h.appServicesService
        #expect(native is any NativeAuthSurface && !(native is any PagesSurface) && !(native is any AppServicesSurface))
        #expect(pages is any PagesSurface && !(pages is any NativeAuthSurface) && !(pages is any ParseSurface))
        #expect(apps is any AppServicesSurface && !(apps is any NativeAuthSurface) && !(apps is any OperatorSurface))
        // The token endpoint's OAuth grants are a surface of their own: the native API redeems no authorization code.
        let tokens: Any = TokenEndpointService(engine: h.engine)
        #expect(tokens is any TokenEndpointSurface && !(tokens is any NativeAuthSurface) && !(tokens is any PagesSurface))
        #expect(!(native is any TokenEndpointSurface) && !(pages is any TokenEndpointSurface) && !(engine is any TokenEndpointSurface))
    }
}
