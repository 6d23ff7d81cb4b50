import Foundation

/// Codes that wait on an account with no journey to hang them on (a Parse second factor; the account page's new
/// address or new factor): each in a flow row of its own, found by a name derived from the account and the purpose
/// (stored as its HMAC like any token), with the hashed, expiring, attempt-capped code every flow has. A new request
/// replaces the waiting one.
extension Proofs {
    /// Stores `code` as the one waiting under `name`, sent to `target` by `channel`.
    func savePendingCode(_ code: String, name: String, target: String, channel: String, clientId: String, user: UserRecord) async throws {
        let hash = engine.secretHash(name), now = time.now()
        try await transaction { tx in
            if let waiting = try await tx.flows.find(tokenHash: hash) { _ = try await tx.flows.complete(id: waiting.id, tokenHash: hash) }
            var flow = FlowRecord(id: SecureRandom.uuidString(), tokenHash: hash, kind: .signIn, email: user.email ?? "", userId: user.id,
                                  state: .enrolling(client: JourneyClient(id: clientId, acceptsCode: true, acceptsPassword: false)),
                                  expiresAt: now + Double(self.settings.codes.ttlSeconds), createdAt: now)
            flow.state.factors.target = target
            flow.state.factors.channel = channel
            try flow.take(.enrolmentCodeSent)
            try await tx.flows.insert(flow)
            try await self.saveCode(code, for: flow, in: tx)
        }
    }

    /// Where the code waiting under `name` was sent, while it is live.
    func pendingTarget(name: String) async throws -> String? {
        guard let flow = try await reader.flows.find(tokenHash: engine.secretHash(name)), flow.expiresAt > time.now() else { return nil }
        return flow.state.factors.target
    }

    /// Checks `code` against the one waiting under `name` for `target`: nil when it was right (and is used up), else
    /// why not. A wrong guess costs an attempt, committed.
    func redeemPendingCode(name: String, target: String?, code: String?) async throws -> LatchkeyError? {
        let hash = engine.secretHash(name)
        return try await transaction { tx -> LatchkeyError? in
            guard let flow = try await tx.flows.find(tokenHash: hash), flow.expiresAt > self.time.now(),
                  flow.state.factors.target == target else { return .invalidCode(attemptsLeft: 0) }
            if let wrong = try await self.checkCode(code, for: flow, in: tx) { return wrong }
            return try await tx.flows.complete(id: flow.id, tokenHash: hash) ? nil : .invalidCode(attemptsLeft: 0)
        }
    }
}
