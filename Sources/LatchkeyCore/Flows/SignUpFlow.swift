import Foundation

public enum SignUpStartResult: Sendable, Equatable {
    case started(continuationToken: String)
    /// The client cannot do email verification (`oob` missing): it must fall back to the browser.
    case redirect
}

public enum ChallengeResult: Sendable, Equatable {
    case code(CodeChallenge, continuationToken: String)
    case password(continuationToken: String)
    case redirect
}

public enum SignUpContinueResult: Sendable, Equatable {
    case completed(continuationToken: String, expiresIn: Int)
    case credentialRequired(continuationToken: String)
    case attributesRequired(continuationToken: String, required: [AttributeDefinition])
}

/// Sign-up: verify the email by code, collect a password (unless passwordless) and the required
/// attributes, in whatever order the client supplies them, then create the account.
extension LatchkeyEngine {
    public func signUpStart(username: String?, password: String?, attributes: String?, challengeTypes: String?,
                            caller: CallerInfo) async throws -> SignUpStartResult {
        let (client, email, types) = try await beginFlow(.signUpPerIP, username: username, challengeTypes: challengeTypes, caller: caller)
        let given = try parseAttributes(attributes)
        if password != nil { _ = try requireAcceptablePassword(password, email: email) }
        let accepted = try validateAttributes(given)
        // A pending App Services registration does not block: proving the mailbox by code replaces it.
        if let existing = try await store.read({ try $0.user(email: email) }), existing.status != .pending {
            throw LatchkeyError.userAlreadyExists
        }
        guard types.oob else { return .redirect }
        let passwordHash: String? = if let password { try await hashPassword(password) } else { nil }

        var state = FlowState(stage: .started, clientId: client.id, acceptsCode: types.oob, acceptsPassword: types.password)
        state.passwordHash = passwordHash
        state.attributes = accepted
        let initial = state
        let token = try await transaction { tx in
            try self.newFlow(.signUp, email: email, userId: nil, state: initial, in: tx)
        }
        return .started(continuationToken: token)
    }

    /// First call mails the code; calling again resends (a new code replaces the old one).
    /// After `credential_required` it answers the password challenge instead.
    public func signUpChallenge(continuationToken: String?, challengeTypes: String?, caller: CallerInfo) async throws -> ChallengeResult {
        _ = try requireClient(caller.clientId)
        let types = try ChallengeTypes.parse(challengeTypes)
        try await limit(.mailPerIP, caller.ip, caller: caller)
        return try await transaction { tx -> Result<ChallengeResult, LatchkeyError> in
            var flow = try self.loadFlow(continuationToken, kind: .signUp, client: caller.clientId, in: tx)
            switch flow.state.stage {
            case .started, .codeSent:
                guard types.oob else { return .success(.redirect) }
                if let limited = try self.limit(.mailPerAddress, flow.email, caller: caller, in: tx) { return .failure(limited) }
                let challenge = try self.issueCode(for: flow, mail: .signUpCode,
                                                    locale: self.mailLocale(flow.state.attributes, caller: caller), in: tx)
                flow.state.stage = .codeSent
                return .success(.code(challenge, continuationToken: try self.advance(flow, in: tx)))
            case .passwordRequired:
                guard types.password else { return .success(.redirect) }
                return .success(.password(continuationToken: try self.advance(flow, in: tx)))
            case .attributesRequired, .completed, .passwordChallenged, .codeVerified:
                throw LatchkeyError.flowStepMismatch("this sign-up is not waiting for a challenge")
            }
        }.get()
    }

    public func signUpContinueWithCode(continuationToken: String?, code: String?, caller: CallerInfo) async throws -> SignUpContinueResult {
        _ = try requireClient(caller.clientId)
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        return try await transaction { tx -> Result<SignUpContinueResult, LatchkeyError> in
            var flow = try self.loadFlow(continuationToken, kind: .signUp, client: caller.clientId, in: tx)
            guard flow.state.stage == .codeSent else { throw LatchkeyError.flowStepMismatch("no code was sent for this sign-up") }
            if let limited = try self.limit(.codePerAccount, flow.email, caller: caller, in: tx) { return .failure(limited) }
            if let failure = try self.checkCode(code, for: flow, in: tx) { return .failure(failure) }
            flow.state.emailVerified = true
            return .success(try self.nextSignUpStep(flow, caller: caller, in: tx))
        }.get()
    }

    public func signUpContinueWithPassword(continuationToken: String?, password: String?, caller: CallerInfo) async throws -> SignUpContinueResult {
        _ = try requireClient(caller.clientId)
        let flow = try await store.read { try self.loadFlow(continuationToken, kind: .signUp, client: caller.clientId, in: $0) }
        guard flow.state.stage == .passwordRequired else { throw LatchkeyError.flowStepMismatch("this sign-up is not waiting for a password") }
        let accepted = try requireAcceptablePassword(password, email: flow.email)
        let hash = try await hashPassword(accepted)
        return try await transaction { tx in
            // Re-read inside the transaction: the token must still be the live one.
            var current = try self.loadFlow(continuationToken, kind: .signUp, client: caller.clientId, in: tx)
            guard current.state.stage == .passwordRequired else { throw LatchkeyError.flowTokenInvalid }
            current.state.passwordHash = hash
            return try self.nextSignUpStep(current, caller: caller, in: tx)
        }
    }

    public func signUpContinueWithAttributes(continuationToken: String?, attributes: String?, caller: CallerInfo) async throws -> SignUpContinueResult {
        _ = try requireClient(caller.clientId)
        guard attributes != nil else { throw LatchkeyError.missingParameter("attributes") }
        let given = try parseAttributes(attributes)
        return try await transaction { tx in
            var flow = try self.loadFlow(continuationToken, kind: .signUp, client: caller.clientId, in: tx)
            guard flow.state.stage == .attributesRequired else { throw LatchkeyError.flowStepMismatch("this sign-up is not waiting for attributes") }
            let accepted = try self.validateAttributes(given)
            flow.state.attributes.merge(accepted) { _, new in new }
            return try self.nextSignUpStep(flow, caller: caller, in: tx)
        }
    }

    /// After each step: ask for what is still missing, or create the account.
    private func nextSignUpStep(_ flow: FlowRecord, caller: CallerInfo, in tx: any StoreWriting) throws -> SignUpContinueResult {
        var flow = flow
        if flow.state.passwordHash == nil && flow.state.clientAcceptsPassword {
            flow.state.stage = .passwordRequired
            return .credentialRequired(continuationToken: try advance(flow, in: tx))
        }
        let missing = missingRequiredAttributes(flow.state.attributes)
        if !missing.isEmpty {
            flow.state.stage = .attributesRequired
            return .attributesRequired(continuationToken: try advance(flow, in: tx), required: missing)
        }
        let now = time.now()
        // The code proved the mailbox: an unconfirmed registration of the address by someone else goes, and with
        // it its links and password, so confirming it later hands nobody this account.
        if let pending = try tx.user(email: flow.email), pending.status == .pending {
            try tx.deleteUser(id: pending.id)
            try audit(tx, "pending_registration_replaced", caller: caller, userId: pending.id, email: pending.email)
        }
        let user = UserRecord(id: UUID().uuidString.lowercased(), email: flow.email, passwordHash: flow.state.passwordHash,
                              emailVerified: true, status: .active, attributes: flow.state.attributes, now: now)
        try tx.insert(user: user)  // throws .userAlreadyExists if another sign-up won the race
        try audit(tx, "sign_up", caller: caller, userId: user.id, email: user.email,
                  detail: user.passwordHash == nil ? "passwordless" : "password")
        flow.userId = user.id
        flow.state.stage = .completed
        flow.state.passwordHash = nil
        return .completed(continuationToken: try advance(flow, in: tx), expiresIn: settings.tokens.flowTTLSeconds)
    }
}
