import Foundation

/// The account model's side of the assurance rule: what an account holds, read once from the store, and the rule's
/// verdict for a change turned into the engine's errors. Every surface calls these; none counts factors itself.
extension AccountRules {
    /// What `user` holds: its password, address, identities, API keys, and the second factors and passkeys that can
    /// be used (an enabled method; passkeys while they are on).
    func holdings(of user: UserRecord, in repositories: any Repositories) async throws -> AccountHoldings {
        var strong = Set<StrongFactor>()
        for factor in try await repositories.secondFactors.secondFactors(userId: user.id) where settings.mfa.methods.contains(factor.kind.method) {
            if let kind = factor.kind.strongFactor { strong.insert(kind) }
        }
        if settings.passkeys.enabled, try await !repositories.passkeys.passkeys(userId: user.id).isEmpty { strong.insert(.passkey) }
        let identities = try await repositories.identities.identities(userId: user.id)
        return AccountHoldings(password: user.passwordHash != nil, address: user.email != nil,
                               identities: identities.contains { $0.provider != VerifiedIdentity.anonymousProvider },
                               apiKeys: try await !repositories.apiKeys.apiKeys(userId: user.id).isEmpty, strong: strong)
    }

    /// The rule's verdict for `ask` on `user`'s account.
    func assurance(_ ask: Assurance.Ask, for user: UserRecord, proved: SessionProof, in repositories: any Repositories) async throws -> Assurance.Verdict {
        Assurance.decide(ask, holds: try await holdings(of: user, in: repositories), proved: proved, now: time.now(),
                         recentSeconds: settings.mfa.recentSignInSeconds)
    }

    /// Throws unless the session is enough for the change `ask`: `.signInNotRecent` (sign in again) or `.stepUpNeeded`
    /// (sign in again with the account's own factors).
    func requireAssurance(_ ask: Assurance.Ask, for user: UserRecord, proved: SessionProof, in repositories: any Repositories) async throws {
        switch try await assurance(ask, for: user, proved: proved, in: repositories) {
        case .enough: return
        case .signInAgain: throw LatchkeyError.secondFactor(.signInNotRecent(maxAgeSeconds: settings.mfa.recentSignInSeconds))
        case .stepUp, .secondFactor, .enrol, .notHere: throw LatchkeyError.secondFactor(.stepUpNeeded)
        }
    }
}

extension BrowserSessionRecord {
    /// What this browser session's sign-in proved.
    public var proof: SessionProof { SessionProof(amr: amr.split(separator: " "), authTime: authTime) }
}

extension SecondFactorRecord.Kind {
    /// The factor as the assurance rule counts it (recovery codes belong to the authenticator).
    var strongFactor: StrongFactor? {
        switch self {
        case .email: .mailedCode
        case .sms: .textedCode
        case .totp: .authenticator
        case .recovery: nil
        }
    }
}
