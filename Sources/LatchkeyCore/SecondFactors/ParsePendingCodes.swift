import Foundation

/// Texted codes for Parse, which has no continuation token to hang them on: each waits in a flow row of its own,
/// found by a name derived from the account (`parse-mfa-<purpose>:<user id>`, stored as its HMAC like any token),
/// with the hashed, expiring, attempt-capped code every flow has. A new request replaces the waiting one.
extension ParseService {
    enum PendingPurpose: String { case login, enrol }

    private func pendingName(_ purpose: PendingPurpose, user: UserRecord) -> String { "parse-mfa-\(purpose.rawValue):\(user.id)" }

    /// Texts a new code to `number` (outside any transaction), then stores it.
    func parseSendPendingCode(_ purpose: PendingPurpose, to number: String, user: UserRecord, app: ParseApp, caller: CallerInfo) async throws {
        let code = try await engine.factors.sendTextCode(to: number, purpose: purpose == .login ? "sign_in" : "enrol", user: user, caller: caller)
        let hash = engine.secretHash(pendingName(purpose, user: user))
        let now = time.now()
        try await transaction { tx in
            if let waiting = try await tx.flows.find(tokenHash: hash) { _ = try await tx.flows.complete(id: waiting.id, tokenHash: hash) }
            var state = FlowState(stage: purpose == .login ? .mfaChallenged : .registrationChallenged,
                                  client: JourneyClient(id: "parse:\(app.id)", acceptsCode: true, acceptsPassword: false), details: .signIn)
            state.factors.target = number
            state.factors.channel = SecondFactorRecord.Kind.sms.rawValue
            let flow = FlowRecord(id: SecureRandom.uuidString(), tokenHash: hash, kind: .signIn, email: user.email ?? "", userId: user.id,
                                  state: state, expiresAt: now + Double(self.settings.codes.ttlSeconds), createdAt: now)
            try await tx.flows.insert(flow)
            try await self.engine.proofs.saveCode(code, for: flow, in: tx)
        }
        EngineMetrics.secondFactor("challenged", .sms)
    }

    /// The number a pending code of `purpose` was texted to, while it is live.
    func pendingTarget(_ purpose: PendingPurpose, user: UserRecord) async throws -> String? {
        guard let flow = try await reader.flows.find(tokenHash: engine.secretHash(pendingName(purpose, user: user))),
              flow.expiresAt > time.now() else { return nil }
        return flow.state.factors.target
    }

    /// Whether `code` is the live code texted to `target`; a right one is used up with its flow.
    func redeemPendingCode(_ purpose: PendingPurpose, user: UserRecord, target: String?, code: String) async throws -> Bool {
        let hash = engine.secretHash(pendingName(purpose, user: user))
        return try await transaction { tx -> Bool in
            guard let flow = try await tx.flows.find(tokenHash: hash), flow.expiresAt > self.time.now(),
                  flow.state.factors.target == target else { return false }
            guard try await self.engine.proofs.checkCode(code, for: flow, in: tx) == nil else { return false }
            return try await tx.flows.complete(id: flow.id, tokenHash: hash)
        }
    }
}
