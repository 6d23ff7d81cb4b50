import Foundation

/// What a dialect knows about an account it is about to create. Every dialect creates accounts through
/// `createAccount`, so identifiers, uniqueness, verification state and audit are decided once.
public struct NewAccount: Sendable {
    /// Normalized (see `requireEmail`); nil for an account known by username only.
    public var email: String?
    public var username: String?
    public var passwordHash: String?
    public var attributes: [String: JSONValue]
    /// True only when the mailbox was proven (a code or link reached it).
    public var emailVerified: Bool
    public var status: UserRecord.Status

    public init(email: String?, username: String? = nil, passwordHash: String?, attributes: [String: JSONValue] = [:],
                emailVerified: Bool, status: UserRecord.Status) {
        self.email = email; self.username = username; self.passwordHash = passwordHash; self.attributes = attributes
        self.emailVerified = emailVerified; self.status = status
    }
}

extension AccountRules {
    /// A plausible address, normalized, or `.invalidEmail` saying what is wrong with it.
    func requireEmail(_ raw: String?) throws -> String {
        guard let raw, !raw.isEmpty else { throw LatchkeyError.invalidEmail(.empty) }
        return try EmailAddress.check(raw).mapError { LatchkeyError.invalidEmail($0) }.get()
    }

    /// A username of 1 to 128 characters with no control characters or spaces at its ends, or `.invalidUsername`.
    func requireUsername(_ raw: String?) throws -> String {
        guard let raw, !raw.isEmpty, raw.count <= 128, raw == raw.trimmingCharacters(in: .whitespacesAndNewlines),
              !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw LatchkeyError.invalidUsername
        }
        return raw
    }

    /// Creates the account in the caller's transaction. An unconfirmed registration of the same address gives way
    /// when the new account proved the mailbox (its links and password go with it, so confirming it later hands
    /// nobody this account), or when its link has expired. Otherwise the identifiers' owner keeps them, also when
    /// another creation wins a race.
    func createAccount(_ account: NewAccount, detail: String, caller: CallerInfo, in tx: any Repositories) async throws -> UserRecord {
        if let email = account.email, let holder = try await tx.users.find(email: email), holder.status == .pending {
            if account.emailVerified {
                try await tx.users.delete(id: holder.id)
                try await audit(tx, "pending_registration_replaced", caller: caller, userId: holder.id, email: holder.email)
            } else if !holdsAddress(holder) {
                try await tx.users.delete(id: holder.id)
            }
        }
        try await requireNoIdentifierClash(username: account.username, email: account.email, excluding: nil, in: tx)
        let user = UserRecord(id: SecureRandom.uuidString(), email: account.email, username: account.username,
                              passwordHash: account.passwordHash, emailVerified: account.emailVerified, status: account.status,
                              attributes: account.attributes, now: time.now())
        try await tx.users.insert(user)  // a conflict becomes .emailTaken / .usernameTaken in `transaction`
        try await audit(tx, "sign_up", caller: caller, userId: user.id, email: user.email, detail: detail)
        EngineMetrics.signUp(caller.dialect)
        return user
    }

    /// Whether an account keeps its address: any confirmed one, and a pending one until its link's lifetime
    /// (from the last mail) has passed.
    func holdsAddress(_ user: UserRecord) -> Bool {
        user.status != .pending || user.updatedAt + Double(settings.linkTokenTTLSeconds) > time.now()
    }
}
