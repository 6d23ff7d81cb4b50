import Foundation
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
}
