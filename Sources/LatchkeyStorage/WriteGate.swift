/// One writer at a time, in arrival order, without blocking a thread: a transaction holds the gate across its
/// awaits, and a stand-alone write waits for it, so nothing runs on the writer connection inside someone else's
/// transaction.
actor WriteGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard busy else { busy = true; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
