import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs CPU-heavy work (scrypt) on its own fixed set of threads, off the event loops and off GCD's pool.
/// Work beyond `queueLimit` waiting jobs is refused at once, so a burst costs a 503 instead of unbounded memory.
public final class HashingPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private let queueLimit: Int

    public init(concurrency: Int, queueLimit: Int) {
        self.queueLimit = max(1, queueLimit)
        for index in 0..<max(1, concurrency) {
            // The threads keep the pool alive: it lives as long as the process (an engine is made once).
            let thread = Thread { self.workLoop() }
            thread.name = "latchkey-hash-\(index)"
            thread.start()
        }
    }

    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            defer { condition.unlock() }
            guard jobs.count < queueLimit else {
                EngineMetrics.hashingRejections.increment()
                continuation.resume(throwing: LatchkeyError.serverBusy(retryAfterSeconds: 1))
                return
            }
            jobs.append { continuation.resume(returning: work()) }
            EngineMetrics.hashingQueueDepth.record(jobs.count)
            condition.signal()
        }
    }

    private func workLoop() {
        // Niceness is per thread on Linux: the event loops preempt hashing, so cheap endpoints
        // stay fast while scrypt saturates every core. who = 0 means the calling thread.
        #if os(Linux)
        _ = setpriority(__priority_which_t(0), 0, 10)
        #endif
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            EngineMetrics.hashingQueueDepth.record(jobs.count)
            condition.unlock()
            job()
        }
    }
}
