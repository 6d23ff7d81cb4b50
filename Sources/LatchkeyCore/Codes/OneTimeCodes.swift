import Foundation

/// What the client is told about a code it was just mailed.
public struct CodeChallenge: Sendable, Equatable {
    public var targetLabel: String
    public var channel = "email"
    public var codeLength: Int
    public var resendIntervalSeconds: Int
}

/// One-time codes: drawn without bias, stored as an HMAC, expiring, with capped attempts, single use.
extension Proofs {
    /// Mails a new code for `flow` (to `address`, by default the flow's); it replaces any earlier code of that flow.
    func issueCode(for flow: FlowRecord, mail kind: MailKind, to address: String? = nil, locale: String?,
                   in tx: any Repositories) async throws -> CodeChallenge {
        let code = newCode()
        try await saveCode(code, for: flow, in: tx)
        let to = address ?? flow.email
        try await engine.enqueue(engine.mailComposer.compose(kind, to: to, code: code, validMinutes: settings.codes.ttlSeconds / 60,
                                               locale: locale, origin: .flow(flow), at: time.now()), in: tx)
        return CodeChallenge(targetLabel: EmailAddress.mask(to), codeLength: settings.codes.length,
                             resendIntervalSeconds: settings.codes.resendIntervalSeconds)
    }

    /// A code of the configured length, for a flow's `saveCode` (a text message is sent before it is saved).
    func newCode() -> String { SecureRandom.digits(settings.codes.length) }

    /// Stores `code` (its HMAC) as the flow's live code, replacing any earlier one.
    func saveCode(_ code: String, for flow: FlowRecord, in tx: any Repositories) async throws {
        let policy = settings.codes, now = time.now()
        try await tx.flows.saveCode(OTPRecord(flowId: flow.id, codeHash: engine.secretHash(code), attemptsLeft: policy.maxAttempts,
                                              expiresAt: now + Double(policy.ttlSeconds), createdAt: now))
    }

    /// Same writes as a real code, minus the mail: a decoy flow must look and take like a real one.
    func issueDecoyCode(for flow: FlowRecord, in tx: any Repositories) async throws -> CodeChallenge {
        let now = time.now()
        try await tx.flows.saveCode(OTPRecord(flowId: flow.id, codeHash: engine.secretHash(SecureRandom.token()),
                                              attemptsLeft: settings.codes.maxAttempts,
                                              expiresAt: now + Double(settings.codes.ttlSeconds), createdAt: now))
        return challenge(for: flow)
    }

    private func challenge(for flow: FlowRecord) -> CodeChallenge {
        CodeChallenge(targetLabel: EmailAddress.mask(flow.email), codeLength: settings.codes.length,
                      resendIntervalSeconds: settings.codes.resendIntervalSeconds)
    }

    /// Checks `code` against the flow's live code in one conditional write. A wrong guess costs an attempt
    /// (committed even though the call fails); the last one kills the code. A right one consumes it, once.
    func checkCode(_ code: String?, for flow: FlowRecord, in tx: any Repositories) async throws -> LatchkeyError? {
        guard let code, !code.isEmpty else { throw LatchkeyError.missing(.code) }
        // An over-long guess is hashed to nothing that can match, and still costs its attempt.
        let hash = code.count <= 64 ? engine.secretHash(code) : Data()
        switch try await tx.flows.redeemCode(flowId: flow.id, codeHash: hash, now: time.now()) {
        case .redeemed:
            engine.mailComposer.capture?.codeUsed(code, to: nil)
            return nil
        case .wrong(let left): return .invalidCode(attemptsLeft: left)
        case .noLiveCode: return .invalidCode(attemptsLeft: 0)
        }
    }
}
