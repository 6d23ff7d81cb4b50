import Foundation

/// Test mode's API (`/testing/v1/`). A router holds `any TestingSurface`, so the compiler keeps it to these.
public protocol TestingSurface: Sendable {
    var settings: EngineSettings { get }
    var clockOffsetSeconds: Double { get }
    func now() -> Date
    func advanceClock(seconds: Double)
    func resetClock()
    func wipe(keepAccounts: Bool) async throws
    func createUsers(_ specs: [TestAccount]) async throws -> [UserRecord]
    func setState(_ key: String, _ state: TestAccountState) async throws -> UserRecord
    func exportState() async throws -> TestingState
    func importState(_ state: TestingState) async throws -> TestingImportResult
}

extension TestingService {
    public var settings: EngineSettings { engine.settings }
}
