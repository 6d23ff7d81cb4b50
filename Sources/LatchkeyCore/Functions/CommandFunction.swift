import Foundation

/// `kind: command`: an executable run without a shell, the JSON argument list on stdin, the JSON answer on
/// stdout. A non-zero exit, garbage or the timeout is a `fail`.
public struct CommandFunction: OperatorFunction {
    public let argv: [String]
    public let timeoutSeconds: Int

    public init(argv: [String], timeoutSeconds: Int) { self.argv = argv; self.timeoutSeconds = timeoutSeconds }

    public func call(_ arguments: [JSONValue]) async -> FunctionOutcome {
        guard let input = try? JSONEncoder().encode(arguments) else { return FunctionOutcome(status: .fail, message: "cannot encode") }
        let argv = self.argv, timeout = timeoutSeconds
        return await withCheckedContinuation { continuation in
            // Blocking pipe reads and waits belong on their own thread, never on a Swift concurrency thread.
            Thread.detachNewThread {
                continuation.resume(returning: Self.runBlocking(argv: argv, input: input, timeoutSeconds: timeout))
            }
        }
    }

    static func runBlocking(argv: [String], input: Data, timeoutSeconds: Int) -> FunctionOutcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do { try process.run() } catch { return FunctionOutcome(status: .fail, message: "cannot start \(argv[0]): \(error)") }
        try? stdin.fileHandleForWriting.write(contentsOf: input)
        try? stdin.fileHandleForWriting.close()
        let output = OutputBox()
        let reader = Thread { output.data = stdout.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        if finished.wait(timeout: .now() + .seconds(timeoutSeconds)) == .timedOut {
            process.terminate()
            if finished.wait(timeout: .now() + .seconds(2)) == .timedOut { kill(process.processIdentifier, SIGKILL); finished.wait() }
            return FunctionOutcome(status: .fail, message: "timed out after \(timeoutSeconds) s")
        }
        while !reader.isFinished { usleep(1000) }
        guard process.terminationStatus == 0 else {
            return FunctionOutcome(status: .fail, message: "exited with status \(process.terminationStatus)")
        }
        return FunctionOutcome.parse(output.data.prefix(65536))
    }

    /// Written by the reader thread before `isFinished`, read after: no concurrent access.
    private final class OutputBox: @unchecked Sendable { var data = Data() }
}
