import Foundation

public enum SignInInitiateResult: Sendable, Equatable {
    case started(continuationToken: String)
    case redirect
}

/// Sign-in: by password when the account has one and the client can ask for it, else by emailed code.
extension SignInJourney {
    public func signInInitiate(username: String?, challengeTypes: ChallengeTypes?, caller: CallerInfo) async throws -> SignInInitiateResult {
        let (client, email, types) = try await beginFlow(.signInPerIP, username: username, challengeTypes: challengeTypes, caller: caller)
        guard let user = try await reader.users.find(email: email), user.status == .active else {
            throw LatchkeyError.userNotFound
        }
        guard types.oob || (types.password && user.passwordHash != nil) else { return .redirect }
        let initial = FlowState.started(client: JourneyClient(id: client.id, acceptsCode: types.oob, acceptsPassword: types.password,
                                                         capabilities: types.capabilities.sorted(), audience: caller.audience),
                              details: .signIn)
        let token = try await newFlow(.signIn, email: email, userId: user.id, state: initial)
        return .started(continuationToken: token)
    }

    /// Answers `password` for accounts with one (when the client accepts it); otherwise mails a code.
    /// Calling it again on a code flow resends.
    public func signInChallenge(continuationToken: String?, challengeTypes: ChallengeTypes?, caller: CallerInfo) async throws -> ChallengeResult {
        _ = try engine.requireClient(caller.clientId)
        let types = try requireRedirect(challengeTypes)
        return try await transaction { tx -> Result<ChallengeResult, LatchkeyError> in
            var flow = try await self.loadFlow(continuationToken, kind: .signIn, client: caller.clientId, in: tx)
            guard let userId = flow.userId, let user = try await tx.users.find(id: userId), user.status == .active else {
                throw LatchkeyError.userNotFound
            }
            try flow.require(.challenge)
            if user.passwordHash != nil && types.password {
                try flow.take(.passwordChosen)
                return .success(.password(continuationToken: try await self.advance(flow, in: tx)))
            }
            guard types.oob else { return .success(.redirect) }
            if let limited = try await self.limit(.mailPerIP, caller.ip, caller: caller, in: tx) { return .failure(limited) }
            if let limited = try await self.limit(.mailPerAddress, flow.email, caller: caller, in: tx) { return .failure(limited) }
            let challenge = try await engine.proofs.issueCode(for: flow, mail: .signInCode,
                                                              locale: engine.mailLocale(user.attributes, caller: caller), in: tx)
            try flow.take(.codeSent)
            return .success(.code(challenge, continuationToken: try await self.advance(flow, in: tx)))
        }.get()
    }

    /// The password grant. A wrong password keeps the continuation token usable for another try.
    public func signInWithPassword(continuationToken: String?, username: String?, password: String?, scope: String?,
                                   caller: CallerInfo) async throws -> SignInOutcome {
        let client = try engine.requireClient(caller.clientId)
        if caller.audience == .app { try engine.accounts.requireGrant(.password, for: client) }
        guard let password, !password.isEmpty else { throw LatchkeyError.missing(.password) }
        _ = try engine.tokens.grantedScopes(scope, client: client)  // before the password is checked, so a bad scope costs no attempt
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        let flow = try await loadFlow(continuationToken, kind: .signIn, client: caller.clientId, in: reader)
        try flow.require(.password)
        guard let id = flow.userId, let user = try await reader.users.find(id: id), user.status == .active else {
            throw LatchkeyError.userNotFound
        }
        if let username, EmailAddress.normalize(username) != flow.email { throw LatchkeyError.invalidCredentials }
        return try await submitPassword(password, flow: flow, user: user, client: client, scope: scope, caller: caller)
    }

    /// The password as the proof a flow waits for: checked (and counted) once, then what follows a first factor.
    func submitPassword(_ password: String, flow: FlowRecord, user: UserRecord, client: ClientApplication, scope: String?,
                        caller: CallerInfo) async throws -> SignInOutcome {
        let rehash = try await engine.accounts.checkPassword(password, for: user, caller: caller)
        return try await transaction { tx in
            guard let current = try await tx.users.find(id: user.id) else { throw LatchkeyError.userNotFound }
            return try await self.afterFirstFactor(flow, user: current, passed: .password(rehash: rehash), client: client, scope: scope,
                                                   caller: caller, in: tx)
        }
    }

    /// The code grant, with the mailed code; on a flow waiting for its second factor, that factor's code.
    /// `secondFactorOnly` (`mfa_oob`) accepts only a second factor's code.
    public func signInWithCode(continuationToken: String?, code: String?, scope: String?, secondFactorOnly: Bool = false,
                               caller: CallerInfo) async throws -> SignInOutcome {
        let client = try engine.requireClient(caller.clientId)
        if caller.audience == .app { try engine.accounts.requireGrant(.oob, for: client) }
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        let pending = try await secondFactorFlow(continuationToken, caller: caller)
        if let flow = pending, flow.state.stage == .mfaChallenged {
            return try await signInWithSecondFactor(flow, code: code, scope: scope, client: client, caller: caller)
        }
        if secondFactorOnly || pending != nil {
            // An unknown or finished token is invalid (or expired); a live one at another step is the wrong step.
            if pending == nil { _ = try await loadFlow(continuationToken, where: { _ in true }, client: caller.clientId, in: reader) }
            throw LatchkeyError.flowStepMismatch("no second-factor code was sent for this sign-in")
        }
        return try await transaction { tx -> Result<SignInOutcome, LatchkeyError> in
            let flow = try await self.loadFlow(continuationToken, kind: .signIn, client: caller.clientId, in: tx)
            try flow.require(.code)
            if let limited = try await self.limit(.codePerAccount, flow.email, caller: caller, in: tx) { return .failure(limited) }
            guard let id = flow.userId, var user = try await tx.users.find(id: id), user.status == .active else {
                throw LatchkeyError.userNotFound
            }
            if let failure = try await engine.proofs.checkCode(code, for: flow, in: tx) {
                try await self.audit(tx, "sign_in_failed", caller: caller, userId: user.id, email: user.email, detail: "wrong code")
                EngineMetrics.signIn(caller.dialect, "wrong_code")
                return .failure(failure)
            }
            if !user.emailVerified {
                // The mailbox's owner proves it now: what whoever put the address there without proving it added goes.
                try await engine.accounts.proveAddress(&user, through: .mailbox("code sign-in"), caller: caller, in: tx)
                try await tx.users.update(user)
            }
            return .success(try await self.afterFirstFactor(flow, user: user, passed: .mailedCode, client: client, scope: scope,
                                                            caller: caller, in: tx))
        }.get()
    }

    /// The continuation-token grant: sign-in right after a completed sign-up (or password reset), or after a second
    /// factor was enrolled on the way in. Single use.
    public func signInWithContinuationToken(continuationToken: String?, username: String?, scope: String?,
                                            caller: CallerInfo) async throws -> SignInOutcome {
        let client = try engine.requireClient(caller.clientId)
        if caller.audience == .app { try engine.accounts.requireGrant(.continuationToken, for: client) }
        return try await transaction { tx in
            let flow = try await self.loadFlow(continuationToken, where: { _ in true }, client: client.id, in: tx)
            guard let userId = flow.userId, let user = try await tx.users.find(id: userId), user.status == .active else {
                throw flow.userId == nil ? LatchkeyError.flowTokenInvalid : LatchkeyError.userNotFound
            }
            if flow.state.stage == .registrationVerified {
                try await self.finish(flow, in: tx)
                var enrolled = flow
                enrolled.state.factors.amr = AuthenticationMethods.afterSecondFactor(flow.state.factors.amr, kind: flow.state.factors.channel == "sms" ? .sms : .email)
                return try await self.completeSignIn(enrolled, user: user, rehash: nil, client: client, scope: scope,
                                                     method: "second factor enrolled", caller: caller, in: tx)
            }
            // The token a finished sign-up or reset handed out (a sign-in's own tokens are not for this grant).
            guard flow.kind != .signIn, flow.state.stage == .completed else { throw LatchkeyError.flowTokenInvalid }
            if let username, EmailAddress.normalize(username) != flow.email { throw LatchkeyError.flowTokenInvalid }
            // A reset mailed a code; a sign-up proved the address by one.
            let proven = flow.kind == .passwordReset || flow.state.signUp?.emailVerified == true
            return try await self.afterFirstFactor(flow, user: user, passed: .continuation(mailboxProven: proven), client: client,
                                                   scope: scope, caller: caller, in: tx)
        }
    }

    /// The end of every sign-in flow: tokens for an app, or (for the hosted pages) the signed-in account.
    func completeSignIn(_ flow: FlowRecord, user: UserRecord, rehash: String?, client: ClientApplication, scope: String?,
                        method: String, caller: CallerInfo, in tx: any Repositories) async throws -> SignInOutcome {
        let amr = flow.state.factors.amr.isEmpty ? AuthenticationMethods.password : flow.state.factors.amr
        let user = try await engine.accounts.recordSignIn(user, rehash: rehash, method: method, amr: amr, caller: caller, in: tx)
        if flow.state.client.audience == .browser { return .signedIn(BrowserSignIn(user: user, amr: amr)) }
        // The ID token says how this sign-in was proven, as the provider's do (`amr`, `acr`, `auth_time`).
        return .tokens(try await engine.tokens.issueTokens(for: user, client: client, scope: scope, familyId: nil,
                                             authentication: Tokens.Authentication(nonce: nil, authTime: time.now(), amr: amr),
                                             caller: caller, in: tx))
    }
}
