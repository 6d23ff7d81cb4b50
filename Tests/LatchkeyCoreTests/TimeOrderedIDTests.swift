import Foundation
import Testing
@testable import LatchkeyCore

@Suite struct TimeOrderedIDs {
    /// RFC 9562 appendix A.6: 1645557742000 ms is 017f22e2-79b0-7xxx; version 7, variant 10xx.
    @Test func layoutFollowsRFC9562() {
        let id = TimeOrderedID.make(at: Date(timeIntervalSince1970: 1_645_557_742))
        #expect(id.hasPrefix("017f22e2-79b0-7"))
        #expect(UUID(uuidString: id) != nil)
        #expect(id == id.lowercased())
        let variant = id[id.index(id.startIndex, offsetBy: 19)]
        #expect("89ab".contains(variant))
    }

    /// Keys made later sort after earlier ones as text, which is what keeps index inserts in order.
    @Test func laterSortsAfterEarlierAndNoneRepeat() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        // Two milliseconds apart: within one millisecond the order is random, as RFC 9562 allows.
        let ids = (0..<2000).map { TimeOrderedID.make(at: start + Double($0) * 0.002) }
        let inOrder = zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }
        #expect(inOrder)
        let sameMillisecond = (0..<2000).map { _ in TimeOrderedID.make(at: start) }
        #expect(Set(sameMillisecond).count == sameMillisecond.count)
    }
}
