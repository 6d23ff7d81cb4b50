import Foundation

/// Second factors: an account's enrolled email addresses, phone numbers and authenticator secrets, and its
/// recovery codes. TOTP steps and recovery codes are each taken once, in one conditional write.
public protocol SecondFactorRepository: Sendable {
    /// The account's factors (recovery codes included), oldest first.
    func secondFactors(userId: String) async throws -> [SecondFactorRecord]
    func insert(_ factor: SecondFactorRecord) async throws
    /// Removes the account's factors of these kinds; the number removed.
    func deleteSecondFactors(userId: String, kinds: [SecondFactorRecord.Kind]) async throws -> Int
    /// Accepts `step` for a TOTP factor only if no step at or after it was accepted before. False on a replay.
    func acceptTOTPStep(factorId: String, step: Int) async throws -> Bool
    /// Removes the account's recovery code with this HMAC. False when there is none (never issued, or used).
    func redeemRecoveryCode(userId: String, codeHash: Data) async throws -> Bool
}

/// One second factor. `target` is the address or phone number a code goes to (nil for an authenticator and a
/// recovery code); `secret` is the authenticator's seed sealed under a key derived from the server key, or a
/// recovery code's HMAC. Neither is ever stored in clear.
public struct SecondFactorRecord: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable { case email, totp, sms, recovery }
    public var id: String
    public var userId: String
    public var kind: Kind
    public var target: String?
    public var secret: Data?
    /// TOTP: the last time step accepted.
    public var lastStep: Int?
    public var createdAt: Date

    public init(id: String, userId: String, kind: Kind, target: String? = nil, secret: Data? = nil, lastStep: Int? = nil,
                createdAt: Date) {
        self.id = id; self.userId = userId; self.kind = kind; self.target = target; self.secret = secret; self.lastStep = lastStep
        self.createdAt = createdAt
    }
}
