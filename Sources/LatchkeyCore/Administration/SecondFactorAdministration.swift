import Foundation

/// A user's second factors as the operator sees them: kind, masked target, when; never a secret.
public struct SecondFactorSummary: Sendable, Equatable {
    public var id: String
    public var kind: SecondFactorRecord.Kind
    public var target: String?
    public var createdAt: Date
    /// Authenticators: how many recovery codes are left.
    public var recoveryCodesLeft: Int?
}

/// The operator's view of second factors: list them, and reset them (the user signs in with the first factor and,
/// under `required`, enrols again). A reset is audited and mailed to the account.
extension OperatorService {
    public func adminSecondFactors(_ key: String) async throws -> (UserRecord, [SecondFactorSummary]) {
        let user = try await adminFindUser(key)
        let factors = try await reader.secondFactors.secondFactors(userId: user.id)
        let recovery = factors.filter { $0.kind == .recovery }.count
        return (user, factors.filter { $0.kind != .recovery }.map { factor in
            SecondFactorSummary(id: factor.id, kind: factor.kind, target: Self.maskedTarget(factor), createdAt: factor.createdAt,
                                recoveryCodesLeft: factor.kind == .totp ? recovery : nil)
        })
    }

    /// Removes every second factor of the user (and the recovery codes); the number of factors removed.
    public func adminResetSecondFactors(_ key: String, caller: CallerInfo) async throws -> Int {
        let found = try await adminFindUser(key)
        return try await transaction { tx in
            guard let user = try await tx.users.find(id: found.id) else { throw AdminError.userNotFound }
            let factors = try await tx.secondFactors.secondFactors(userId: user.id).filter { $0.kind != .recovery }.count
            guard try await self.engine.factors.removeFactors(of: user, reason: "reset by the operator", caller: caller, in: tx) > 0 else { return 0 }
            try await self.audit(tx, "admin.mfa_reset", caller: caller, userId: user.id, email: user.email, detail: "\(factors) factors")
            return factors
        }
    }

    static func maskedTarget(_ factor: SecondFactorRecord) -> String? {
        switch factor.kind {
        case .email: factor.target.map(EmailAddress.mask)
        case .sms: factor.target.map(SecondFactors.maskPhone)
        case .totp, .recovery: nil
        }
    }
}
