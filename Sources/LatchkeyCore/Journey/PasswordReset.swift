import Foundation

public enum PasswordResetPollStatus: String, Sendable, Equatable {
    case notStarted = "not_started", inProgress = "in_progress", succeeded, failed
}

/// Recovery by code (the native API's self-service reset): prove the mailbox with a code, choose a new password,
/// then sign in with the flow's continuation token. The reset is applied synchronously in `submit`; `poll` reports it.
extension SignInJourney {
    public func resetStart(username: String?, challengeTypes: ChallengeTypes?, caller: CallerInfo) async throws -> SignInInitiateResult {
        let (client, email, types) = try await beginFlow(.resetPerIP, username: username, challengeTypes: challengeTypes, caller: caller)
        let user = try await reader.users.find(email: email)
        let eligible = user.map { $0.status == .active && $0.passwordHash != nil } ?? false
        if !eligible && !engine.settings.resetEnumerationProtection {
            if let user, user.status == .active { throw LatchkeyError.userHasNoPassword }
            throw LatchkeyError.userNotFound
        }
        guard types.oob else { return .redirect }
        let initial = FlowState.started(client: JourneyClient(id: client.id, acceptsCode: true, acceptsPassword: types.password,
                                                         capabilities: types.capabilities.sorted(), audience: caller.audience),
                              details: .reset(ResetProgress(decoy: !eligible)))
        let token = try await newFlow(.passwordReset, email: email, userId: eligible ? user?.id : nil, state: initial)
        return .started(continuationToken: token)
    }

    /// Mails the reset code (a decoy flow stores a code nobody receives); calling again resends.
    public func resetChallenge(continuationToken: String?, challengeTypes: ChallengeTypes?, caller: CallerInfo) async throws -> ChallengeResult {
        _ = try engine.requireClient(caller.clientId)
        let types = try requireRedirect(challengeTypes)
        try await limit(.mailPerIP, caller.ip, caller: caller)
        return try await transaction { tx -> Result<ChallengeResult, LatchkeyError> in
            var flow = try await self.loadFlow(continuationToken, kind: .passwordReset, client: caller.clientId, in: tx)
            try flow.require(.challenge)
            guard types.oob else { return .success(.redirect) }
            if let limited = try await self.limit(.mailPerAddress, flow.email, caller: caller, in: tx) { return .failure(limited) }
            let challenge: CodeChallenge
            if flow.state.isDecoy {
                challenge = try await engine.proofs.issueDecoyCode(for: flow, in: tx)
            } else {
                let attributes = try await tx.users.find(email: flow.email)?.attributes ?? [:]
                challenge = try await engine.proofs.issueCode(for: flow, mail: .resetCode, locale: engine.mailLocale(attributes, caller: caller), in: tx)
            }
            try flow.take(.codeSent)
            return .success(.code(challenge, continuationToken: try await self.advance(flow, in: tx)))
        }.get()
    }

    /// `grant_type=oob`. Success hands out a token for `submit`, valid `flowTTLSeconds` (≤ 600 by default).
    public func resetContinue(continuationToken: String?, code: String?, caller: CallerInfo) async throws -> (String, Int) {
        _ = try engine.requireClient(caller.clientId)
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        return try await transaction { tx -> Result<(String, Int), LatchkeyError> in
            var flow = try await self.loadFlow(continuationToken, kind: .passwordReset, client: caller.clientId, in: tx)
            try flow.require(.code)
            if let limited = try await self.limit(.codePerAccount, flow.email, caller: caller, in: tx) { return .failure(limited) }
            if let failure = try await engine.proofs.checkCode(code, for: flow, in: tx) { return .failure(failure) }
            if flow.state.isDecoy { return .failure(.invalidCode(attemptsLeft: 0)) }
            try flow.take(.codeVerified)
            return .success((try await self.advance(flow, in: tx), engine.settings.tokens.flowTTLSeconds))
        }.get()
    }

    /// Sets the new password. Policy errors leave the token usable for another try.
    /// On success: password stored, lockout cleared, every refresh token revoked, a notice mailed, audited.
    public func resetSubmit(continuationToken: String?, newPassword: String?, caller: CallerInfo) async throws -> (String, Int) {
        _ = try engine.requireClient(caller.clientId)
        let flow = try await loadFlow(continuationToken, kind: .passwordReset, client: caller.clientId, in: reader)
        try flow.require(.newPassword)
        guard let userId = flow.userId else { throw LatchkeyError.flowTokenInvalid }
        let accepted = try engine.accounts.requireAcceptablePassword(newPassword, identifiers: [flow.email], missing: .newPassword)
        guard let user = try await reader.users.find(id: userId), let current = user.passwordHash else {
            throw LatchkeyError.userNotFound
        }
        if try await engine.passwords.verify(accepted, against: current) != .mismatch {
            throw LatchkeyError.passwordRejected(.recentlyUsed)
        }
        let hash = try await engine.passwords.hash(accepted)
        return try await transaction { tx in
            guard var account = try await tx.users.find(id: userId) else { throw LatchkeyError.flowTokenInvalid }
            // The code reached the mailbox: the reset proves the address.
            try await engine.accounts.applyNewPassword(hash, to: &account, provesAddress: true, caller: caller, in: tx)
            var live = flow
            try live.take(.passwordSet)  // `advance` fails, and all of this rolls back, if the token was used meanwhile
            return (try await self.advance(live, in: tx), engine.settings.resetPollIntervalSeconds)
        }
    }

    /// Where the reset stands. `succeeded` hands back the token for the `continuation_token` grant.
    public func resetPoll(continuationToken: String?, caller: CallerInfo) async throws -> (PasswordResetPollStatus, String?) {
        _ = try engine.requireClient(caller.clientId)
        let flow = try await loadFlow(continuationToken, kind: .passwordReset, client: caller.clientId, in: reader)
        switch flow.state.stage {
        case .completed: return (.succeeded, continuationToken)
        default: return (.notStarted, nil)
        }
    }
}
