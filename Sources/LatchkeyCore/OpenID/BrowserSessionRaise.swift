import Foundation

/// A way in added and proven in a browser session counts as proven by that session, as the journey would count it
/// had the sign-in passed it (a new authenticator after a password makes `pwd otp mfa`): the person goes on without
/// signing in again to what they just proved. The cookie is new, as after any rise in what a session may do.
extension EngineKernel {
    /// Raises `session` for a second factor of `kind` added in it, in the transaction that added it; the new cookie,
    /// or nil when nothing changed or the session ended meanwhile.
    func raise(_ session: BrowserSessionRecord, adding kind: SecondFactorRecord.Kind, in tx: any Repositories) async throws -> String? {
        try await raise(session, to: AuthenticationMethods.afterSecondFactor(session.proof.amr, kind: kind), in: tx)
    }

    /// The same for a passkey added in it (synced or on one device).
    func raise(_ session: BrowserSessionRecord, addingPasskey passkey: PasskeyRecord, in tx: any Repositories) async throws -> String? {
        try await raise(session, to: AuthenticationMethods.afterPasskey(session.proof.amr, passkey: AuthenticationMethods.passkey(synced: passkey.backupEligible)),
                        in: tx)
    }

    private func raise(_ session: BrowserSessionRecord, to amr: [String], in tx: any Repositories) async throws -> String? {
        let joined = amr.joined(separator: " ")
        guard joined != session.amr else { return nil }
        let cookie = SecureRandom.token()
        return try await tx.openID.raiseBrowserSession(id: session.id, tokenHash: engine.secretHash(cookie), amr: joined) ? cookie : nil
    }
}
