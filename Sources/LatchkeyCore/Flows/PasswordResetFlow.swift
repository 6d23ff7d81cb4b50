import Foundation

public enum PasswordResetPollStatus: String, Sendable, Equatable {
    case notStarted = "not_started", inProgress = "in_progress", succeeded, failed
}

/// Self-service password reset: prove the mailbox with a code, choose a new password, then sign in with
/// the flow's continuation token. The reset is applied synchronously in `submit`; `poll` reports it.
extension LatchkeyEngine {
    public func resetStart(username: String?, challengeTypes: String?, caller: CallerInfo) async throws -> SignInInitiateResult {
        let (client, email, types) = try await beginFlow(.resetPerIP, username: username, challengeTypes: challengeTypes, caller: caller)
        let user = try await store.read { try $0.user(email: email) }
        let eligible = user.map { $0.status == .active && $0.passwordHash != nil } ?? false
        if !eligible && !settings.resetEnumerationProtection {
            if let user, user.status == .active { throw LatchkeyError.userHasNoPassword }
            throw LatchkeyError.userNotFound
        }
        guard types.oob else { return .redirect }
        var state = FlowState(stage: .started, clientId: client.id, acceptsCode: true, acceptsPassword: types.password)
        state.decoy = !eligible
        let initial = state
        let token = try await transaction { tx in
            try self.newFlow(.passwordReset, email: email, userId: eligible ? user?.id : nil, state: initial, in: tx)
        }
        return .started(continuationToken: token)
    }

    /// Mails the reset code (a decoy flow stores a code nobody receives); calling again resends.
    public func resetChallenge(continuationToken: String?, challengeTypes: String?, caller: CallerInfo) async throws -> ChallengeResult {
        _ = try requireClient(caller.clientId)
        let types = try ChallengeTypes.parse(challengeTypes)
        try await limit(.mailPerIP, caller.ip, caller: caller)
        return try await transaction { tx -> Result<ChallengeResult, LatchkeyError> in
            var flow = try self.loadFlow(continuationToken, kind: .passwordReset, client: caller.clientId, in: tx)
            guard flow.state.stage == .started || flow.state.stage == .codeSent else {
                throw LatchkeyError.flowStepMismatch("this reset is not waiting for a challenge")
            }
            guard types.oob else { return .success(.redirect) }
            if let limited = try self.limit(.mailPerAddress, flow.email, caller: caller, in: tx) { return .failure(limited) }
            let challenge = flow.state.decoy ? try self.issueDecoyCode(for: flow, in: tx)
                                             : try self.issueCode(for: flow, mail: .resetCode,
                                                                  locale: self.mailLocale(try tx.user(email: flow.email)?.attributes ?? [:],
                                                                                          caller: caller), in: tx)
            flow.state.stage = .codeSent
            return .success(.code(challenge, continuationToken: try self.advance(flow, in: tx)))
        }.get()
    }

    /// `grant_type=oob`. Success hands out a token for `submit`, valid `flowTTLSeconds` (≤ 600 by default).
    public func resetContinue(continuationToken: String?, code: String?, caller: CallerInfo) async throws -> (String, Int) {
        _ = try requireClient(caller.clientId)
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        return try await transaction { tx -> Result<(String, Int), LatchkeyError> in
            var flow = try self.loadFlow(continuationToken, kind: .passwordReset, client: caller.clientId, in: tx)
            guard flow.state.stage == .codeSent else { throw LatchkeyError.flowStepMismatch("no code was sent for this reset") }
            if let limited = try self.limit(.codePerAccount, flow.email, caller: caller, in: tx) { return .failure(limited) }
            if let failure = try self.checkCode(code, for: flow, in: tx) { return .failure(failure) }
            if flow.state.decoy { return .failure(.invalidCode(attemptsLeft: 0)) }
            flow.state.stage = .codeVerified
            return .success((try self.advance(flow, in: tx), self.settings.tokens.flowTTLSeconds))
        }.get()
    }

    /// Sets the new password. Policy errors leave the token usable for another try.
    /// On success: password stored, lockout cleared, every refresh token revoked, a notice mailed, audited.
    public func resetSubmit(continuationToken: String?, newPassword: String?, caller: CallerInfo) async throws -> (String, Int) {
        _ = try requireClient(caller.clientId)
        let flow = try await store.read { try self.loadFlow(continuationToken, kind: .passwordReset, client: caller.clientId, in: $0) }
        guard flow.state.stage == .codeVerified, let userId = flow.userId else {
            throw LatchkeyError.flowStepMismatch("this reset is not waiting for a new password")
        }
        guard let newPassword, !newPassword.isEmpty else { throw LatchkeyError.missingParameter("new_password") }
        let accepted = try requireAcceptablePassword(newPassword, email: flow.email)
        guard let user = try await store.read({ try $0.user(id: userId) }), let current = user.passwordHash else {
            throw LatchkeyError.userNotFound
        }
        if try await verifyPassword(accepted, against: current) != .mismatch {
            throw LatchkeyError.passwordRejected(.recentlyUsed)
        }
        let hash = try await hashPassword(accepted)
        return try await transaction { tx in
            var live = try self.loadFlow(continuationToken, kind: .passwordReset, client: caller.clientId, in: tx)
            guard live.state.stage == .codeVerified, var account = try tx.user(id: userId) else { throw LatchkeyError.flowTokenInvalid }
            try self.applyNewPassword(hash, to: &account, caller: caller, in: tx)
            live.state.stage = .completed
            return (try self.advance(live, in: tx), self.settings.resetPollIntervalSeconds)
        }
    }

    /// Where the reset stands. `succeeded` hands back the token for the `continuation_token` grant.
    public func resetPoll(continuationToken: String?, caller: CallerInfo) async throws -> (PasswordResetPollStatus, String?) {
        _ = try requireClient(caller.clientId)
        let flow = try await store.read { try self.loadFlow(continuationToken, kind: .passwordReset, client: caller.clientId, in: $0) }
        switch flow.state.stage {
        case .completed: return (.succeeded, continuationToken)
        default: return (.notStarted, nil)
        }
    }

    /// Same writes as a real code, minus the mail: a decoy flow must look and take like a real one.
    private func issueDecoyCode(for flow: FlowRecord, in tx: any StoreWriting) throws -> CodeChallenge {
        let now = time.now()
        try tx.save(otp: OTPRecord(flowId: flow.id, codeHash: secretHash(SecureRandom.token()), attemptsLeft: settings.codes.maxAttempts,
                                   expiresAt: now + Double(settings.codes.ttlSeconds), createdAt: now))
        return CodeChallenge(targetLabel: EmailAddress.mask(flow.email), codeLength: settings.codes.length,
                             resendIntervalSeconds: settings.codes.resendIntervalSeconds)
    }
}
