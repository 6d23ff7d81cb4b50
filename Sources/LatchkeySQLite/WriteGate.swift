import Synchronization

/// One writer at a time, in arrival order, without blocking a thread: a transaction holds the gate across its
/// awaits, and a stand-alone write waits for it, so nothing runs on the writer connection inside someone else's
/// transaction. A lock rather than an actor, so that taking a free gate costs no hop to another executor.
final class WriteGate: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []

        mutating func take() -> Bool {
            guard !busy else { return false }
            busy = true
            return true
        }
    }

    private let state = Mutex(State())

    func acquire() async {
        if state.withLock({ $0.take() }) { return }
        await withCheckedContinuation { continuation in
            let takenMeanwhile = state.withLock { state in
                if state.take() { return true }
                state.waiting.append(continuation)
                return false
            }
            if takenMeanwhile { continuation.resume() }
        }
    }

    /// Hands the gate to the next waiter, or frees it.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else { state.busy = false; return nil }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
