import Foundation
import LatchkeyCore
import Logging
import ServiceLifecycle

/// Test mode's state on disk, as Firebase's emulators keep theirs: loaded at start (`testing.import`,
/// `serve --testing --import FILE`) and written at exit (`testing.export_on_exit`), in the document
/// `POST /testing/v1/export` answers.
enum TestStateFile {
    static func load(_ path: String, into testing: TestingService, logger: Logger) async throws {
        let state: TestingState
        do {
            state = try JSONDecoder().decode(TestingState.self, from: try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw StartupError(key: "testing.import", message: "\(path) is not a state document of POST /testing/v1/export: "
                               + TestingState.describe(error), exitCode: .dataError)
        }
        do {
            let done = try await testing.importState(state)
            logger.notice("test mode state loaded from \(path): \(done.users) accounts, \(done.secondFactors) second factors, \(done.roles) roles")
            for problem in done.problems.prefix(10) { logger.warning("testing.import: \(problem)") }
        } catch let refusal as TestingRefusal {
            guard case .badField(let words) = refusal else { throw refusal }
            throw StartupError(key: "testing.import", message: "\(path): \(words)", exitCode: .dataError)
        }
    }

    /// Writes the state at graceful shutdown, after the listener has stopped taking requests (it is the first
    /// service, so the last to stop), to a new file beside the target that then replaces it: a crash mid-write
    /// leaves the previous export whole.
    struct ExportOnExit: Service {
        let path: String
        let testing: TestingService
        let logger: Logger

        func run() async throws {
            try? await gracefulShutdown()
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                let state = try await testing.exportState()
                let temporary = path + ".partial"
                try encoder.encode(state).write(to: URL(fileURLWithPath: temporary))
                guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                logger.notice("test mode state written to \(path): \(state.users.count) accounts")
            } catch {
                logger.error("testing.export_on_exit: cannot write \(path): \(error.localizedDescription)")
            }
        }
    }
}
