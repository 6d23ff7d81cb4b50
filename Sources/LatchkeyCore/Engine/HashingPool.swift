import Foundation

/// Runs CPU-heavy work (scrypt) on a bounded set of threads, off the event loops.
/// Work beyond `queueLimit` waiting jobs is refused at once, so a burst costs a 503 instead of unbounded memory.
public final class HashingPool: @unchecked Sendable {
    private let queue: OperationQueue
    private let lock = NSLock()
    private var waiting = 0
    private let queueLimit: Int

    public init(concurrency: Int, queueLimit: Int) {
        queue = OperationQueue()
        queue.name = "latchkey.hashing"
        queue.maxConcurrentOperationCount = max(1, concurrency)
        self.queueLimit = max(1, queueLimit)
    }

    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        let admitted = lock.withLock { () -> Bool in
            guard waiting < queueLimit else { return false }
            waiting += 1
            return true
        }
        guard admitted else { throw LatchkeyError.serverBusy(retryAfterSeconds: 1) }
        return await withCheckedContinuation { continuation in
            queue.addOperation {
                let result = work()
                self.lock.withLock { self.waiting -= 1 }
                continuation.resume(returning: result)
            }
        }
    }
}
