import Foundation

/// A passkey as the second factor at the hosted pages: after a password, a mailed code or an issuer, an account that
/// holds a passkey may pass the second step with it (a device secret is of another kind than any first factor). The
/// native API has no passkey on its wire, so only a journey that ends in a browser offers it.
extension SignInJourney {
    /// Whether this journey's second step may be a passkey: it ends in a browser, passkeys are on, the account has one.
    func passkeyIsSecondFactor(for user: UserRecord, after flow: FlowRecord, in tx: any Repositories) async throws -> Bool {
        guard flow.state.client.audience == .browser, engine.settings.passkeys.enabled else { return false }
        return try await !tx.passkeys.passkeys(userId: user.id).isEmpty
    }

    /// Whether the flow behind `continuationToken`, at its second step, may be passed with a passkey.
    public func passkeyIsSecondFactor(continuationToken: String?, caller: CallerInfo) async throws -> Bool {
        guard let flow = try await secondFactorFlow(continuationToken, caller: caller), let userId = flow.userId,
              let user = try await reader.users.find(id: userId) else { return false }
        return try await passkeyIsSecondFactor(for: user, after: flow, in: reader)
    }

    /// The second step passed with a passkey of the flow's own account: the sign-in completes with the first factor's
    /// methods, the passkey's and `mfa`.
    func signInWithPasskeyAsSecondFactor(continuationToken: String?, body: Data, csrfCookie: String, client: ClientApplication,
                                         caller: CallerInfo) async throws -> SignInOutcome {
        let (flow, user) = try await requireSecondFactorFlow(continuationToken, for: .secondFactor, caller: caller, in: reader)
        guard try await passkeyIsSecondFactor(for: user, after: flow, in: reader) else {
            throw LatchkeyError.passkeyRefused("this sign-in cannot take a passkey as its second step")
        }
        let asserted = try await engine.passkeys.verifiedAssertion(body, csrfCookie: csrfCookie, caller: caller)
        let passkey = asserted.passkey, passkeyMethods = asserted.amr
        guard asserted.user.id == user.id else { throw LatchkeyError.passkeyRefused("this passkey belongs to another account") }
        return try await transaction { tx in
            guard let current = try await tx.users.find(id: user.id) else { throw LatchkeyError.userNotFound }
            try await self.engine.passkeys.recordUse(asserted, in: tx)
            try await self.finish(flow, in: tx)
            try await self.audit(tx, "mfa_passed", caller: caller, userId: user.id, email: user.email, detail: "passkey \(passkey.name)")
            var passed = flow
            passed.state.factors.amr = AuthenticationMethods.afterPasskey(flow.state.factors.amr, passkey: passkeyMethods)
            return try await self.completeSignIn(passed, user: current, rehash: nil, client: client, scope: nil,
                                                 method: "second factor passkey", caller: caller, in: tx)
        }
    }
}
