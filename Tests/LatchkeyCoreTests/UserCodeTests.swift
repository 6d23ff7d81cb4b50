import Testing
@testable import LatchkeyCore

/// The device grant's user codes: drawn from twenty consonants, shown with a dash, typed back in any shape a person types.
@Suite struct UserCodeTests {
    @Test func aCodeIsEightConsonantsShownInTwoHalves() {
        let codes = (0..<200).map { _ in UserCode.make() }
        #expect(codes.allSatisfy { $0.count == 8 && $0.allSatisfy(UserCode.alphabet.contains) })
        #expect(Set(codes).count > 190)
        #expect(UserCode.display("BCDFGHJK") == "BCDF-GHJK")
    }

    @Test func typedCodesAreReadInAnyCaseWithOrWithoutTheDash() {
        for typed in ["BCDF-GHJK", "bcdf-ghjk", "bcdf ghjk", " BCDFGHJK "] {
            #expect(UserCode.normalize(typed) == "BCDFGHJK")
        }
        for typed in [nil, "", "BCDF-GHJ", "BCDF-GHJKL", "ABCD-EFGH", "BCDF-GHJ1", String(repeating: "B", count: 100)] {
            #expect(UserCode.normalize(typed) == nil)
        }
    }
}
