import Foundation

extension SelfService {
    /// Deletes the account, after a recent sign-in and with its address (or username) typed again: every session
    /// and token ends with it (the store removes what the account held). The address is told.
    public func deleteAccount(_ holder: AccountHolder, typed: String?, caller: CallerInfo) async throws {
        try await requireAssurance(.delete, holder)
        let caller = CallerInfo.selfService(caller)
        let typed = (typed ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        guard !typed.isEmpty, typed == (holder.user.email ?? holder.user.username ?? holder.user.id).lowercased() else {
            throw AccountPageRefusal.confirmationMismatch
        }
        try await transaction { tx in
            let user = try await self.current(holder, in: tx)
            try await self.engine.tokens.revokeEverySession(userId: user.id, at: self.time.now(), in: tx)
            try await self.engine.mailOwner(.accountDeleted, user, what: "", caller: caller, in: tx)
            try await tx.users.delete(id: user.id)
            try await self.audit(tx, "user_deleted", caller: caller, userId: user.id, email: user.email, detail: "by the account holder")
        }
    }
}
