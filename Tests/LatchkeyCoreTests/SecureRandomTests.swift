import Testing
@testable import LatchkeyCore

@Suite struct SecureRandomTests {
    @Test func drawsHaveTheirLengthAndDoNotRepeat() {
        #expect(SecureRandom.bytes(0).isEmpty)
        for count in [1, 16, 32, 33, 300, 4096] { #expect(SecureRandom.bytes(count).count == count) }
        let draws = (0..<2000).map { _ in SecureRandom.bytes(32) }
        #expect(Set(draws).count == draws.count)
        // Each bit is set about half the time (512,000 bits: 0.5 ± 0.005 is about seven standard deviations).
        let ones = draws.joined().reduce(0) { $0 + $1.nonzeroBitCount }
        let share = Double(ones) / Double(draws.count * 32 * 8)
        #expect(abs(share - 0.5) < 0.005, "share of set bits \(share)")
        #expect(SecureRandom.token().count == 43)
    }
}
