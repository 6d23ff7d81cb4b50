// swift-tools-version:6.2
// An app team's integration tests in Swift (XCTest over URLSession) against `latchkey serve --testing`
// (docs/testing.md). LATCHKEY_URL says where the server is.
import PackageDescription

let package = Package(
    name: "LatchkeyTestModeExample",
    targets: [.testTarget(name: "AppTests", path: "Tests/AppTests")]
)
