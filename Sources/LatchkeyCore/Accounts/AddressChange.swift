import Foundation

/// Moving an account to another email address, the same way from every dialect: the new address is unverified,
/// every link mailed to the old one dies, and the old address is told (with the new one masked), so a stolen
/// session cannot quietly take the account over.
extension AccountRules {
    /// Sets `email` (nil removes it) on `user`, in `tx`. Does nothing when the address stays the same. The caller
    /// writes the user; this deletes the outstanding links and queues the notice to the previous address.
    func changeEmail(of user: inout UserRecord, to email: String?, caller: CallerInfo, in tx: any Repositories) async throws {
        guard email != user.email else { return }
        let previous = user.email
        if let email { try await requireNoIdentifierClash(username: nil, email: email, excluding: user.id, in: tx) }
        user.email = email
        user.emailVerified = false
        try await tx.linkTokens.deleteAll(userId: user.id)
        if let previous {
            try await engine.enqueue(engine.mailComposer.compose(.emailChanged, to: previous, newEmail: email.map(EmailAddress.mask),
                                                   locale: engine.mailLocale(user.attributes, caller: caller), at: time.now()), in: tx)
        }
        try await audit(tx, "email_changed", caller: caller, userId: user.id, email: previous,
                        detail: email.map { "to \(EmailAddress.mask($0))" } ?? "removed")
    }

    /// A username must not be another account's email address, nor an email another account's username: otherwise
    /// whoever holds the username wins a username-or-email sign-in with the other account's address.
    func requireNoIdentifierClash(username: String?, email: String?, excluding userId: String?, in tx: any Repositories) async throws {
        if let username, let asEmail = EmailAddress.normalize(username),
           let holder = try await tx.users.find(email: asEmail), holder.id != userId {
            throw LatchkeyError.usernameTaken
        }
        if let email, let holder = try await tx.users.find(username: email), holder.id != userId {
            throw LatchkeyError.emailTaken
        }
    }
}
