import Synchronization

/// How many reads and writes have run on the store so far (a group commit's batch counts each of its writes, a
/// transaction counts once): what background work reads to tell a store serving requests from an idle one.
final class StoreActivity: Sendable {
    private let count = Atomic<UInt64>(0)

    var soFar: UInt64 { count.load(ordering: .relaxed) }

    func note(_ calls: Int = 1) { count.add(UInt64(calls), ordering: .relaxed) }
}
