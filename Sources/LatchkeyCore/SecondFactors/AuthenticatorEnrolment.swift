import Foundation

/// A new authenticator secret offered to a signed-in user: shown once (as text and as the `otpauth://` URI a QR
/// code carries), confirmed with a code from the app.
public struct AuthenticatorOffer: Sendable, Equatable {
    public var secret: String
    public var uri: String
    public var continuationToken: String
}

/// Authenticator enrolment for a native app's signed-in user (MSAL has no wire for it): `begin` makes the secret
/// and keeps it sealed in a flow of its own; `confirm` checks the app's first code, enrols the authenticator and
/// hands back its ten recovery codes, once. The access token's client must ask for second factors.
extension LatchkeyEngine {
    public func beginAuthenticatorEnrolment(accessToken: String, caller: CallerInfo) async throws -> AuthenticatorOffer {
        let (client, user) = try await authenticatorEnrolmentParties(accessToken)
        let key = SecureRandom.bytes(20)
        var state = FlowState(stage: .registrationChallenged, clientId: client.id, acceptsCode: true, acceptsPassword: false)
        state.factorChannel = SecondFactorRecord.Kind.totp.rawValue
        state.factorTarget = Base64URL.encode(factorBox.seal(key))
        let pending = state
        let token = try await newFlow(.signIn, email: user.email ?? "", userId: user.id, state: pending)
        let secret = Base32.encode(key)
        return AuthenticatorOffer(secret: secret, uri: TOTP.provisioningURI(secret: secret, account: user.email ?? user.displayName,
                                                                            issuer: settings.mfa.totpIssuer),
                                  continuationToken: token)
    }

    /// Checks the app's code for the offered secret; returns the recovery codes. A wrong code keeps the offer usable.
    public func confirmAuthenticatorEnrolment(accessToken: String, continuationToken: String?, code: String?,
                                              caller: CallerInfo) async throws -> [String] {
        let (client, user) = try await authenticatorEnrolmentParties(accessToken)
        let flow = try await loadFlow(continuationToken, kind: .signIn, client: client.id, in: reader)
        guard flow.state.stage == .registrationChallenged, flow.state.factorChannel == SecondFactorRecord.Kind.totp.rawValue,
              flow.userId == user.id, let sealed = flow.state.factorTarget.flatMap(Base64URL.decode),
              let key = factorBox.open(sealed) else {
            throw LatchkeyError.flowStepMismatch("this token is not an authenticator enrolment of this user")
        }
        guard let code, !code.isEmpty else { throw LatchkeyError.missing(.code) }
        let failures = try await countSecondFactorAttempt(user, caller: caller)
        guard let step = TOTP.matchingStep(key: key, code: code, at: time.now()) else {
            try await secondFactorFailed(user, failures: failures, what: "wrong code for a new authenticator", caller: caller)
            throw LatchkeyError.invalidCode(attemptsLeft: 1)
        }
        return try await transaction { tx in
            try await self.finish(flow, in: tx)
            try await tx.users.clearPasswordAttempts(userId: user.id)
            guard !(try await tx.secondFactors.secondFactors(userId: user.id)).contains(where: { $0.kind == .totp }) else {
                throw LatchkeyError.secondFactor(.alreadyEnrolled)
            }
            var factor = self.newTOTPFactor(userId: user.id, key: key)
            factor.lastStep = step  // the confirming code cannot also sign in
            try await self.enrol(factor, for: user, caller: caller, in: tx)
            return try await self.replaceRecoveryCodes(userId: user.id, in: tx)
        }
    }

    /// The client and user behind a native access token, when the client asks for second factors and authenticators
    /// are enabled; a user who has one already removes it first (through the operator, or Parse).
    private func authenticatorEnrolmentParties(_ accessToken: String) async throws -> (ClientApplication, UserRecord) {
        let (claims, user) = try await authenticatedAccess(accessToken, audience: .nativeClients)
        let client = try requireClient(claims.aud)
        guard client.mfa != .off, settings.mfa.methods.contains(.totp) else { throw LatchkeyError.secondFactor(.methodNotEnabled("totp")) }
        if try await reader.secondFactors.secondFactors(userId: user.id).contains(where: { $0.kind == .totp }) {
            throw LatchkeyError.secondFactor(.alreadyEnrolled)
        }
        return (client, user)
    }
}
