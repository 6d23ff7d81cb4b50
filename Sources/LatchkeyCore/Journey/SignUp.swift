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
extension SignInJourney {
    public func signUpStart(username: String?, password: String?, attributes given: [String: JSONValue]?, challengeTypes: ChallengeTypes?,
                            caller: CallerInfo) async throws -> SignUpStartResult {
        let (client, email, types) = try await beginFlow(.signUpPerIP, username: username, challengeTypes: challengeTypes, caller: caller)
        let accepted = try engine.accounts.validateAttributes(given ?? [:])
        // A pending App Services registration does not block: proving the mailbox by code replaces it. Without the
        // code challenge the sign-up goes on in the browser, so nothing is hashed here.
        let admitted = try await engine.accounts.admitSignUp(SignUpCandidate(email: email, emailRequired: true, username: nil, password: password,
                                                             passwordRequired: false, provesMailbox: true),
                                             limited: false, hashing: types.oob, caller: caller)
        guard types.oob else { return .redirect }
        let passwordHash = admitted.passwordHash

        let initial = FlowState.started(client: JourneyClient(id: client.id, acceptsCode: types.oob, acceptsPassword: types.password,
                                                         capabilities: types.capabilities.sorted(), audience: caller.audience),
                              details: .signUp(SignUpProgress(passwordHash: passwordHash, attributes: accepted)))
        let token = try await newFlow(.signUp, email: email, userId: nil, state: initial)
        return .started(continuationToken: token)
    }

    /// First call mails the code; calling again resends (a new code replaces the old one).
    /// After `credential_required` it answers the password challenge instead.
    public func signUpChallenge(continuationToken: String?, challengeTypes: ChallengeTypes?, caller: CallerInfo) async throws -> ChallengeResult {
        _ = try engine.requireClient(caller.clientId)
        let types = try requireRedirect(challengeTypes)
        try await limit(.mailPerIP, caller.ip, caller: caller)
        return try await transaction { tx -> Result<ChallengeResult, LatchkeyError> in
            var flow = try await self.loadFlow(continuationToken, kind: .signUp, client: caller.clientId, in: tx)
            try flow.require(.challenge)
            // After the code, a sign-up still missing its password is challenged for it.
            if flow.state.stage == .passwordRequired {
                guard types.password else { return .success(.redirect) }
                return .success(.password(continuationToken: try await self.advance(flow, in: tx)))
            }
            guard types.oob else { return .success(.redirect) }
            if let limited = try await self.limit(.mailPerAddress, flow.email, caller: caller, in: tx) { return .failure(limited) }
            let challenge = try await engine.proofs.issueCode(for: flow, mail: .signUpCode,
                                                              locale: engine.mailLocale(flow.state.signUp?.attributes ?? [:], caller: caller), in: tx)
            try flow.take(.codeSent)
            return .success(.code(challenge, continuationToken: try await self.advance(flow, in: tx)))
        }.get()
    }

    public func signUpContinueWithCode(continuationToken: String?, code: String?, caller: CallerInfo) async throws -> SignUpContinueResult {
        _ = try engine.requireClient(caller.clientId)
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        return try await transaction { tx -> Result<SignUpContinueResult, LatchkeyError> in
            var flow = try await self.loadFlow(continuationToken, kind: .signUp, client: caller.clientId, in: tx)
            try flow.require(.code)
            if let limited = try await self.limit(.codePerAccount, flow.email, caller: caller, in: tx) { return .failure(limited) }
            if let failure = try await engine.proofs.checkCode(code, for: flow, in: tx) { return .failure(failure) }
            flow.state.signUp?.emailVerified = true
            return .success(try await self.nextSignUpStep(flow, caller: caller, in: tx))
        }.get()
    }

    public func signUpContinueWithPassword(continuationToken: String?, password: String?, caller: CallerInfo) async throws -> SignUpContinueResult {
        _ = try engine.requireClient(caller.clientId)
        let flow = try await loadFlow(continuationToken, kind: .signUp, client: caller.clientId, in: reader)
        try flow.require(.missingPassword)
        let accepted = try engine.accounts.requireAcceptablePassword(password, identifiers: [flow.email])
        let hash = try await engine.passwords.hash(accepted)
        var next = flow
        next.state.signUp?.passwordHash = hash
        let updated = next
        // `advance` only moves the flow if its token is still the one read above.
        return try await transaction { tx in try await self.nextSignUpStep(updated, caller: caller, in: tx) }
    }

    public func signUpContinueWithAttributes(continuationToken: String?, attributes given: [String: JSONValue]?,
                                             caller: CallerInfo) async throws -> SignUpContinueResult {
        _ = try engine.requireClient(caller.clientId)
        guard let given else { throw LatchkeyError.missing(.attributes) }
        return try await transaction { tx in
            var flow = try await self.loadFlow(continuationToken, kind: .signUp, client: caller.clientId, in: tx)
            try flow.require(.attributes)
            let accepted = try engine.accounts.validateAttributes(given)
            flow.state.signUp?.attributes.merge(accepted) { _, new in new }
            return try await self.nextSignUpStep(flow, caller: caller, in: tx)
        }
    }

    /// After each step: ask for what is still missing, or create the account.
    private func nextSignUpStep(_ flow: FlowRecord, caller: CallerInfo, in tx: any Repositories) async throws -> SignUpContinueResult {
        var flow = flow
        let answers = flow.state.signUp ?? SignUpProgress()
        if answers.passwordHash == nil && flow.state.client.acceptsPassword {
            try flow.take(.passwordMissing)
            return .credentialRequired(continuationToken: try await advance(flow, in: tx))
        }
        let missing = engine.accounts.missingRequiredAttributes(answers.attributes)
        if !missing.isEmpty {
            try flow.take(.attributesMissing)
            return .attributesRequired(continuationToken: try await advance(flow, in: tx), required: missing)
        }
        let user = try await engine.accounts.createAccount(NewAccount(email: flow.email, passwordHash: answers.passwordHash,
                                                      attributes: answers.attributes, emailVerified: true, status: .active),
                                           detail: answers.passwordHash == nil ? "passwordless" : "password", caller: caller, in: tx)
        flow.userId = user.id
        try flow.take(.accountCreated)
        flow.state.signUp?.passwordHash = nil
        return .completed(continuationToken: try await advance(flow, in: tx), expiresIn: engine.settings.tokens.flowTTLSeconds)
    }
}
