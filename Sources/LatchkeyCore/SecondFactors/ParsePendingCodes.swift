import Foundation

/// Texted codes for Parse, which has no continuation token to hang them on: each waits as a pending code of the
/// account (`parse-mfa-<purpose>:<user id>`).
extension ParseService {
    enum PendingPurpose: String { case login, enrol }

    private func pendingName(_ purpose: PendingPurpose, user: UserRecord) -> String { "parse-mfa-\(purpose.rawValue):\(user.id)" }

    /// Texts a new code to `number` (outside any transaction), then stores it.
    func parseSendPendingCode(_ purpose: PendingPurpose, to number: String, user: UserRecord, app: ParseApp, caller: CallerInfo) async throws {
        let code = try await engine.factors.sendTextCode(to: number, purpose: purpose == .login ? "sign_in" : "enrol", user: user, caller: caller)
        try await engine.proofs.savePendingCode(code, name: pendingName(purpose, user: user), target: number,
                                                channel: SecondFactorRecord.Kind.sms.rawValue, clientId: "parse:\(app.id)", user: user)
        EngineMetrics.secondFactor("challenged", .sms)
    }

    /// The number a pending code of `purpose` was texted to, while it is live.
    func pendingTarget(_ purpose: PendingPurpose, user: UserRecord) async throws -> String? {
        try await engine.proofs.pendingTarget(name: pendingName(purpose, user: user))
    }

    /// Whether `code` is the live code texted to `target`; a right one is used up with its flow.
    func redeemPendingCode(_ purpose: PendingPurpose, user: UserRecord, target: String?, code: String) async throws -> Bool {
        try await engine.proofs.redeemPendingCode(name: pendingName(purpose, user: user), target: target, code: code) == nil
    }
}
