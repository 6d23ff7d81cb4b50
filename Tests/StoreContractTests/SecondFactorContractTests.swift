import Foundation
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore

/// Second factors on every `StoreUnderTest`: listed oldest first, a TOTP step taken once (never an earlier one), a
/// recovery code redeemed once, removed by kind, and gone with their account.
@Suite struct SecondFactorContractTests {
    @Test(arguments: StoreUnderTest.allCases)
    func factorsRoundTripAndAreTakenOnce(_ kind: StoreUnderTest) async throws {
        let store = try await kind.make()
        let owner = Fixtures.user(email: "factors@example.com"), other = Fixtures.user(email: "other@example.com")
        try await store.direct.users.insert(owner)
        try await store.direct.users.insert(other)
        let repo = store.direct.secondFactors
        let totp = SecondFactorRecord(id: SecureRandom.uuidString(), userId: owner.id, kind: .totp, secret: Data(SecureRandom.bytes(48)),
                                      createdAt: Fixtures.now)
        let phone = SecondFactorRecord(id: SecureRandom.uuidString(), userId: owner.id, kind: .sms, target: "+15550001111",
                                       createdAt: Fixtures.now + 1)
        let codeHash = Data(SecureRandom.bytes(32))
        let recovery = SecondFactorRecord(id: SecureRandom.uuidString(), userId: owner.id, kind: .recovery, secret: codeHash,
                                          createdAt: Fixtures.now + 2)
        for factor in [recovery, phone, totp] { try await repo.insert(factor) }
        #expect(try await repo.secondFactors(userId: owner.id) == [totp, phone, recovery])
        #expect(try await repo.secondFactors(userId: other.id).isEmpty)

        #expect(try await repo.acceptTOTPStep(factorId: totp.id, step: 1000))
        #expect(try await !repo.acceptTOTPStep(factorId: totp.id, step: 1000))
        #expect(try await !repo.acceptTOTPStep(factorId: totp.id, step: 999))
        #expect(try await repo.acceptTOTPStep(factorId: totp.id, step: 1001))
        #expect(try await !repo.acceptTOTPStep(factorId: phone.id, step: 5))
        #expect(try await repo.secondFactors(userId: owner.id).first?.lastStep == 1001)

        #expect(try await !repo.redeemRecoveryCode(userId: other.id, codeHash: codeHash))
        #expect(try await repo.redeemRecoveryCode(userId: owner.id, codeHash: codeHash))
        #expect(try await !repo.redeemRecoveryCode(userId: owner.id, codeHash: codeHash))

        #expect(try await repo.deleteSecondFactors(userId: owner.id, kinds: [.sms]) == 1)
        #expect(try await repo.secondFactors(userId: owner.id).map(\.kind) == [.totp])
        try await store.direct.users.delete(id: owner.id)
        #expect(try await repo.secondFactors(userId: owner.id).isEmpty)
    }
}
