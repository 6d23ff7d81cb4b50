import Foundation

/// A new authenticator secret offered: shown once (as text and as the `otpauth://` URI a QR code carries), confirmed
/// with a code from the app.
public struct AuthenticatorOffer: Sendable, Equatable {
    public var secret: String
    public var uri: String
    public var continuationToken: String
}

/// Authenticator enrolment, in two places: a native app's signed-in user (MSAL has no wire for it; `begin` keeps the
/// secret sealed in a flow of its own), and the hosted pages' just-in-time registration (the secret is sealed in the
/// sign-in's own flow). Both confirm with the app's first code, enrol, and hand back ten recovery codes, once.
extension SignInJourney {
    public func beginAuthenticatorEnrolment(accessToken: String, caller: CallerInfo) async throws -> AuthenticatorOffer {
        let (client, user) = try await authenticatorEnrolmentParties(accessToken)
        var flow = transientFlow(.signIn, email: user.email ?? "", userId: user.id,
                                 state: .enrolling(client: JourneyClient(id: client.id, acceptsCode: true, acceptsPassword: false)))
        let (secret, uri) = offerAuthenticator(to: user, in: &flow.state)
        try flow.take(.enrolmentCodeSent)
        let token = try await newFlow(.signIn, email: flow.email, userId: user.id, state: flow.state)
        return AuthenticatorOffer(secret: secret, uri: uri, continuationToken: token)
    }

    /// Checks the app's code for the offered secret; returns the recovery codes. A wrong code keeps the offer usable.
    public func confirmAuthenticatorEnrolment(accessToken: String, continuationToken: String?, code: String?,
                                              caller: CallerInfo) async throws -> [String] {
        let (client, user) = try await authenticatorEnrolmentParties(accessToken)
        let flow = try await loadFlow(continuationToken, kind: .signIn, client: client.id, in: reader)
        guard flow.userId == user.id else { throw LatchkeyError.flowStepMismatch("this token is not an authenticator enrolment of this user") }
        let (key, step) = try await checkOfferedAuthenticator(flow, user: user, code: code, caller: caller)
        return try await transaction { tx in
            try await self.finish(flow, in: tx)
            return try await self.engine.factors.enrolAuthenticator(key, step: step, for: user, caller: caller, in: tx)
        }
    }

    /// The hosted pages' enrolment of an authenticator when the client requires a second factor: the secret for the
    /// page to show, sealed into the sign-in's flow.
    public func registrationBeginAuthenticator(continuationToken: String?, caller: CallerInfo) async throws -> AuthenticatorOffer {
        guard engine.settings.mfa.methods.contains(.totp) else { throw LatchkeyError.secondFactor(.methodNotEnabled("totp")) }
        return try await transaction { tx in
            var (flow, user) = try await self.requireSecondFactorFlow(continuationToken, for: .authenticatorOffer, caller: caller, in: tx)
            guard flow.state.client.audience == .browser else { throw LatchkeyError.secondFactor(.methodNotEnabled("totp")) }
            let (secret, uri) = self.offerAuthenticator(to: user, in: &flow.state)
            try flow.take(.enrolmentCodeSent)
            return AuthenticatorOffer(secret: secret, uri: uri, continuationToken: try await self.advance(flow, in: tx))
        }
    }

    /// The app's first code for the offered secret: enrolled, the flow ready to sign in (`continuation_token`), and the
    /// recovery codes to show once.
    public func registrationConfirmAuthenticator(continuationToken: String?, code: String?,
                                                 caller: CallerInfo) async throws -> (continuationToken: String, recoveryCodes: [String]) {
        let (flow, user) = try await requireSecondFactorFlow(continuationToken, for: .authenticatorCode, caller: caller, in: reader)
        let (key, step) = try await checkOfferedAuthenticator(flow, user: user, code: code, caller: caller)
        return try await transaction { tx in
            var next = flow
            try next.take(.enrolmentVerified)
            next.state.factors.target = nil
            let token = try await self.advance(next, in: tx)
            return (token, try await self.engine.factors.enrolAuthenticator(key, step: step, for: user, caller: caller, in: tx))
        }
    }

    /// A new secret, sealed into `state` (never stored in clear); its Base32 text and `otpauth://` URI.
    private func offerAuthenticator(to user: UserRecord, in state: inout FlowState) -> (secret: String, uri: String) {
        let key = SecureRandom.bytes(20)
        state.factors.channel = SecondFactorRecord.Kind.totp.rawValue
        state.factors.target = Base64URL.encode(keys.secondFactor.seal(key))
        let secret = Base32.encode(key)
        return (secret, TOTP.provisioningURI(secret: secret, account: user.email ?? user.displayName, issuer: engine.settings.mfa.totpIssuer))
    }

    /// The offered secret and the time step the app's code matches; a wrong code counts against the account's lockout.
    private func checkOfferedAuthenticator(_ flow: FlowRecord, user: UserRecord, code: String?, caller: CallerInfo) async throws
        -> (key: [UInt8], step: Int) {
        try flow.require(.authenticatorCode)
        guard flow.state.factors.channel == SecondFactorRecord.Kind.totp.rawValue,
              let sealed = flow.state.factors.target.flatMap(Base64URL.decode), let key = keys.secondFactor.open(sealed) else {
            throw LatchkeyError.flowStepMismatch("this token is not an authenticator enrolment of this user")
        }
        let step = try await engine.factors.checkNewAuthenticatorCode(code, key: key, user: user, caller: caller)
        return (key, step)
    }

    /// The client and user behind a native access token, when the client asks for second factors and authenticators
    /// are enabled; a user who has one already removes it first (through the operator, or Parse).
    private func authenticatorEnrolmentParties(_ accessToken: String) async throws -> (ClientApplication, UserRecord) {
        let (claims, user) = try await engine.tokens.authenticatedAccess(accessToken, audience: .nativeClients)
        let client = try engine.requireClient(claims.aud)
        try await engine.accounts.requireAssurance(.add(.secondFactor), for: user,
                                                   proved: SessionProof(amr: claims.amr ?? [], authTime: claims.auth_time.map { Date(timeIntervalSince1970: Double($0)) }),
                                                   in: reader)
        guard client.mfa != .off, engine.settings.mfa.methods.contains(.totp) else { throw LatchkeyError.secondFactor(.methodNotEnabled("totp")) }
        if try await reader.secondFactors.secondFactors(userId: user.id).contains(where: { $0.kind == .totp }) {
            throw LatchkeyError.secondFactor(.alreadyEnrolled)
        }
        return (client, user)
    }
}
