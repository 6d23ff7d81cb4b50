import Foundation

/// Standard error, written off the event loops and in batches: a request's log line is appended to a buffer, and
/// one thread writes what has gathered, then waits a few milliseconds before the next write. Under load that is
/// about a hundred `write` calls a second, whatever the request rate; when quiet a line goes out at once.
/// Warnings and worse are written before `log` returns (they are rare and may precede an exit), and the buffer is
/// written at exit, so only a crash can lose the last few milliseconds of `info` lines.
final class LogWriter: @unchecked Sendable {
    static let standardError = LogWriter(descriptor: 2)

    /// How long the writer lets lines gather after a write: bounds the write calls a second under load.
    private static let gathering: useconds_t = 5_000

    private let descriptor: Int32
    /// Guards `pending` and `writerIdle`; the writer waits on it.
    private let condition = NSCondition()
    private var pending: [UInt8] = []
    private var writerIdle = false
    /// Held while bytes go to the descriptor, so that batches leave in the order they were taken.
    private let writing = NSLock()

    private init(descriptor: Int32) {
        self.descriptor = descriptor
        pending.reserveCapacity(64 * 1024)
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "latchkey-log"
        thread.start()
        atexit { LogWriter.standardError.flush() }
    }

    /// Appends one line (the caller ends it with a newline).
    func write(_ line: [UInt8], now: Bool) {
        condition.lock()
        pending.append(contentsOf: line)
        if writerIdle { condition.signal() }
        condition.unlock()
        if now { flush() }
    }

    /// Writes everything appended so far before returning.
    func flush() {
        writing.lock()
        defer { writing.unlock() }
        condition.lock()
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        condition.unlock()
        writeAll(batch)
    }

    private func run() {
        var batch: [UInt8] = []
        batch.reserveCapacity(64 * 1024)
        while true {
            condition.lock()
            while pending.isEmpty {
                writerIdle = true
                condition.wait()
            }
            writerIdle = false
            condition.unlock()
            writing.lock()
            condition.lock()
            swap(&batch, &pending)
            condition.unlock()
            writeAll(batch)
            writing.unlock()
            batch.removeAll(keepingCapacity: true)
            usleep(Self.gathering)
        }
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }  // standard error closed or full: nothing better to do with a log line
                offset += written
            }
        }
    }
}
