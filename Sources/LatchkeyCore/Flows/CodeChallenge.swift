import Foundation

/// What the client is told about a code it was just mailed.
public struct CodeChallenge: Sendable, Equatable {
    public var targetLabel: String
    public var channel = "email"
    public var codeLength: Int
    public var resendIntervalSeconds: Int
}

/// One-time codes: drawn without bias, stored as an HMAC, expiring, with capped attempts, single use.
extension LatchkeyEngine {
    /// Mails a new code for `flow`; it replaces any earlier code of that flow.
    func issueCode(for flow: FlowRecord, mail kind: MailKind, locale: String?, in tx: any StoreWriting) throws -> CodeChallenge {
        let policy = settings.codes
        let code = SecureRandom.digits(policy.length)
        let now = time.now()
        try tx.save(otp: OTPRecord(flowId: flow.id, codeHash: secretHash(code), attemptsLeft: policy.maxAttempts,
                                   expiresAt: now + Double(policy.ttlSeconds), createdAt: now))
        try enqueue(mailComposer.compose(kind, to: flow.email, code: code, validMinutes: policy.ttlSeconds / 60, locale: locale, at: now),
                    in: tx)
        return CodeChallenge(targetLabel: EmailAddress.mask(flow.email), codeLength: policy.length,
                             resendIntervalSeconds: policy.resendIntervalSeconds)
    }

    /// Checks `code` against the flow's live code. A wrong guess costs an attempt (committed even though
    /// the call fails); the last one kills the code. A right one consumes it.
    func checkCode(_ code: String?, for flow: FlowRecord, in tx: any StoreWriting) throws -> LatchkeyError? {
        guard let code, !code.isEmpty else { throw LatchkeyError.missingParameter("oob") }
        guard var otp = try tx.otp(flowId: flow.id) else { return .invalidCode(attemptsLeft: 0) }
        guard otp.expiresAt > time.now(), otp.attemptsLeft > 0 else {
            try tx.deleteOTP(flowId: flow.id)
            return .invalidCode(attemptsLeft: 0)
        }
        if code.count <= 64, Digest.constantTimeEqual([UInt8](secretHash(code)), [UInt8](otp.codeHash)) {
            try tx.deleteOTP(flowId: flow.id)
            return nil
        }
        otp.attemptsLeft -= 1
        if otp.attemptsLeft == 0 { try tx.deleteOTP(flowId: flow.id) } else { try tx.save(otp: otp) }
        return .invalidCode(attemptsLeft: otp.attemptsLeft)
    }
}
