import Foundation

/// What `/register/v1.0/challenge` answers: a code went out, or the contact is the mailbox the user just proved.
public enum RegistrationChallengeResult: Sendable, Equatable {
    case code(CodeChallenge, target: String, continuationToken: String)
    case preverified(continuationToken: String)
    case redirect
}

/// Just-in-time enrolment (`registration_required`), as MSAL drives it: `introspect` lists what can be enrolled,
/// `challenge` sends a code to the address or number the user gives (or skips it for the address just proved),
/// `continue` checks it and enrols the factor, and `/token` with `continuation_token` signs in.
extension SignInJourney {
    /// `/register/v1.0/introspect`.
    public func registrationIntrospect(continuationToken: String?, caller: CallerInfo) async throws
        -> (methods: [AuthMethod], continuationToken: String) {
        _ = try engine.requireClient(caller.clientId)
        return try await transaction { tx in
            let (flow, user) = try await self.requireSecondFactorFlow(continuationToken, for: .chooseEnrolment, caller: caller, in: tx)
            let methods = engine.factors.registrableMethods(browser: flow.state.client.audience == .browser).map { method in
                switch method {
                case .email: AuthMethod(id: "email", channel: "email", loginHint: user.email.map(EmailAddress.mask))
                case .sms: AuthMethod(id: "sms", channel: "sms", loginHint: nil)
                case .totp: AuthMethod(id: "totp", channel: "totp", loginHint: nil)
                }
            }
            return (methods, try await self.advance(flow, in: tx))
        }
    }

    /// `/register/v1.0/challenge`: `challenge_target` is the address or phone number to enrol (again: a resend or a
    /// changed contact).
    public func registrationChallenge(continuationToken: String?, challengeType: String?, target: String?, channel: String?,
                                      caller: CallerInfo) async throws -> RegistrationChallengeResult {
        _ = try engine.requireClient(caller.clientId)
        let (flow, user) = try await requireSecondFactorFlow(continuationToken, for: .enrolmentChallenge, caller: caller, in: reader)
        guard challengeType?.split(separator: " ").contains("oob") ?? true else { return .redirect }
        let raw = (target ?? "").trimmingCharacters(in: .whitespaces)
        let method: MFASettings.Method
        switch channel?.lowercased() {
        case "sms"?: method = .sms
        case "email"?: method = .email
        case nil, ""?: method = raw.contains("@") ? .email : .sms  // MSAL sends the channel only when it has one
        case let other?: throw LatchkeyError.secondFactor(.methodNotEnabled(other))
        }
        guard engine.factors.registrableMethods.contains(method) else { throw LatchkeyError.secondFactor(.methodNotEnabled(method.rawValue)) }
        let contact: String
        switch method {
        case .email:
            guard let address = EmailAddress.normalize(raw) else { throw LatchkeyError.secondFactor(.invalidContact) }
            contact = address
        default:
            guard let number = SecondFactors.phoneNumber(raw) else { throw LatchkeyError.secondFactor(.invalidContact) }
            contact = number
        }
        // The mailbox the journey's only proof came from is no second factor.
        if method == .email, !AccountRules.addsAKind(email: contact, of: user, after: flow.firstFactorKinds(of: user)) {
            throw LatchkeyError.secondFactor(.sameKindAsFirstFactor)
        }
        // The address the first factor just proved needs no second code.
        let preverified = method == .email && contact == user.email && user.emailVerified && flow.state.factors.mailboxProven
        var texted: String?
        if method == .sms {
            texted = try await engine.factors.sendTextCode(to: contact, purpose: "enrol", user: user, caller: caller)
        } else if !preverified {
            try await limit(.mailPerIP, caller.ip, caller: caller)
            try await limit(.mailPerAddress, contact, caller: caller)
        }
        let sentCode = texted
        return try await transaction { tx in
            guard var live = try await tx.flows.find(tokenHash: flow.tokenHash) else { throw LatchkeyError.flowTokenInvalid }
            live.state.factors.target = contact
            live.state.factors.channel = method.rawValue
            if preverified {
                try live.take(.enrolmentPreverified)
                return .preverified(continuationToken: try await self.advance(live, in: tx))
            }
            var challenge: CodeChallenge
            if let sentCode {
                try await engine.proofs.saveCode(sentCode, for: live, in: tx)
                challenge = CodeChallenge(targetLabel: contact, channel: "sms", codeLength: engine.settings.codes.length,
                                          resendIntervalSeconds: engine.settings.codes.resendIntervalSeconds)
            } else {
                challenge = try await engine.proofs.issueCode(for: live, mail: .secondFactorCode, to: contact,
                                                     locale: engine.mailLocale(user.attributes, caller: caller), in: tx)
            }
            try live.take(.enrolmentCodeSent)
            return .code(challenge, target: contact, continuationToken: try await self.advance(live, in: tx))
        }
    }

    /// `/register/v1.0/continue`: `oob` with the code sent, or `continuation_token` after a preverified address.
    /// Enrols the factor; the answer's token signs in. A wrong code keeps the token usable.
    public func registrationContinue(continuationToken: String?, grantType: String?, code: String?,
                                     caller: CallerInfo) async throws -> String {
        _ = try engine.requireClient(caller.clientId)
        return try await transaction { tx -> Result<String, LatchkeyError> in
            var (flow, user) = try await self.requireSecondFactorFlow(continuationToken, for: .enrolmentCode, caller: caller, in: tx)
            switch (grantType, flow.state.stage) {
            case ("oob"?, .registrationChallenged):
                guard let code, !code.isEmpty else { return .failure(.invalidCode(attemptsLeft: 1)) }
                if let limited = try await self.limit(.codePerAccount, flow.email, caller: caller, in: tx) { return .failure(limited) }
                if let failure = try await engine.proofs.checkCode(code, for: flow, in: tx) { return .failure(failure) }
            case ("continuation_token"?, .registrationPreverified):
                break
            default:
                throw LatchkeyError.flowStepMismatch("continue with grant_type=oob after a code, continuation_token after preverified")
            }
            // An authenticator is confirmed by its own step (registrationConfirmAuthenticator), never here.
            guard let target = flow.state.factors.target, let kind = SecondFactorRecord.Kind(rawValue: flow.state.factors.channel ?? ""),
                  kind != .totp else {
                throw LatchkeyError.flowTokenInvalid
            }
            if kind == .email, target == user.email, !user.emailVerified {
                // Proven after the account's own first factor in this journey.
                try await engine.accounts.proveAddress(&user, through: .assured("second factor at the address"), caller: caller, in: tx)
                try await tx.users.update(user)
            }
            let factor = SecondFactorRecord(id: SecureRandom.uuidString(), userId: user.id, kind: kind, target: target, createdAt: self.time.now())
            try await engine.factors.enrol(factor, for: user, caller: caller, in: tx)
            try flow.take(.enrolmentVerified)
            return .success(try await self.advance(flow, in: tx))
        }.get()
    }
}
