import Foundation

/// `kind: command`: an executable run without a shell, the JSON input on stdin, the JSON answer on
/// stdout. A non-zero exit or the timeout is a failure. One deadline covers the whole call: writing
/// stdin (a child that never reads cannot hang us), running, and reading stdout.
public struct CommandFunction: OperatorFunction {
    public let argv: [String]
    public let timeoutSeconds: Int
    /// Each call holds three threads (writer, reader, waiter); more calls than this at once fail at once.
    static let maxConcurrentCalls = 16
    private static let running = CallCounter(limit: maxConcurrentCalls)

    public init(argv: [String], timeoutSeconds: Int) { self.argv = argv; self.timeoutSeconds = timeoutSeconds }

    /// A child killed at the deadline leaves the writer with a broken pipe: that must be an error on the write,
    /// not SIGPIPE ending the whole server.
    private static let brokenPipesAreErrors: Void = { signal(SIGPIPE, SIG_IGN); () }()

    public func invoke(_ input: JSONValue) async -> FunctionReply {
        Self.brokenPipesAreErrors
        guard let input = try? JSONEncoder().encode(input) else { return .failed("cannot encode") }
        guard Self.running.enter() else { return .failed("more than \(Self.maxConcurrentCalls) command calls at once") }
        let argv = self.argv, timeout = timeoutSeconds
        return await withCheckedContinuation { continuation in
            // Blocking pipe I/O and waits belong on their own threads, never on a Swift concurrency thread.
            Thread.detachNewThread {
                let outcome = Self.runBlocking(argv: argv, input: input, timeoutSeconds: timeout)
                Self.running.leave()
                continuation.resume(returning: outcome)
            }
        }
    }

    static func runBlocking(argv: [String], input: Data, timeoutSeconds: Int) -> FunctionReply {
        let deadline = DispatchTime.now() + .seconds(timeoutSeconds)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do { try process.run() } catch { return .failed("cannot start \(argv[0]): \(error)") }
        // Writing blocks once the pipe is full and the child does not read: a thread of its own, ended by the
        // child's exit (EPIPE) when the deadline kills it.
        let writer = Thread {
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = OutputBox()
        let reader = Thread { output.data = stdout.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        if finished.wait(timeout: deadline) == .timedOut {
            process.terminate()
            if finished.wait(timeout: .now() + .seconds(2)) == .timedOut { kill(process.processIdentifier, SIGKILL); finished.wait() }
            return .failed("timed out after \(timeoutSeconds) s")
        }
        // The child is gone; a grandchild holding stdout open must not hold us past the deadline either.
        while !reader.isFinished && DispatchTime.now() < deadline { usleep(1000) }
        guard reader.isFinished else { return .failed("timed out after \(timeoutSeconds) s") }
        guard process.terminationStatus == 0 else { return .failed("exited with status \(process.terminationStatus)") }
        return .answered(output.data.prefix(65536))
    }

    /// Written by the reader thread before `isFinished`, read after: no concurrent access.
    private final class OutputBox: @unchecked Sendable { var data = Data() }
}

/// A counter of calls in flight with a ceiling.
final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private let limit: Int
    init(limit: Int) { self.limit = limit }
    func enter() -> Bool { lock.withLock { guard count < limit else { return false }; count += 1; return true } }
    func leave() { lock.withLock { count -= 1 } }
}
