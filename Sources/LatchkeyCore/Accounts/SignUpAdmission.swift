import Foundation

/// What a sign-up gives before its account exists: identifiers as typed, a password (or none), and whether the
/// journey will prove the mailbox (a mailed code) before the account is used.
struct SignUpCandidate {
    var email: String?
    var emailRequired: Bool
    var username: String?
    var password: String?
    var passwordRequired: Bool
    /// A sign-up that proves the mailbox may replace a pending registration of the address however fresh
    /// (`createAccount` removes it); one that does not is refused while the registration holds the address.
    var provesMailbox: Bool
}

/// The identifiers and the hash of an admitted sign-up, ready for `createAccount`.
struct AdmittedSignUp {
    var email: String?
    var username: String?
    var passwordHash: String?
}

extension AccountRules {
    /// The one preamble of every sign-up (native, App Services, Parse, the hosted pages): the per-IP limit (unless the
    /// journey took it already), identifiers checked and normalized, the password policy, identifiers taken by another
    /// account refused, and only then the password hashed, so a refusal costs no scrypt. The insert's unique indexes
    /// settle races.
    /// `hashing: false` checks without hashing (a sign-up that will not go on here).
    func admitSignUp(_ candidate: SignUpCandidate, limited: Bool = true, hashing: Bool = true, caller: CallerInfo) async throws -> AdmittedSignUp {
        if limited { try await limit(.signUpPerIP, caller.ip, caller: caller) }
        let username = try candidate.username.map { try requireUsername($0) }
        if candidate.passwordRequired, candidate.password?.isEmpty ?? true { throw LatchkeyError.missing(.password) }
        let email = candidate.emailRequired || candidate.email != nil ? try requireEmail(candidate.email) : nil
        let accepted = try candidate.password.map { try requireAcceptablePassword($0, identifiers: [username, email]) }
        if let username, try await reader.users.find(username: username) != nil { throw LatchkeyError.usernameTaken }
        if let email, let holder = try await reader.users.find(email: email),
           candidate.provesMailbox ? holder.status != .pending : holdsAddress(holder) {
            throw LatchkeyError.emailTaken
        }
        try await requireNoIdentifierClash(username: username, email: email, excluding: nil, in: reader)
        let hash = hashing ? try await accepted.asyncMap { try await passwords.hash($0) } : nil
        return AdmittedSignUp(email: email, username: username, passwordHash: hash)
    }
}
