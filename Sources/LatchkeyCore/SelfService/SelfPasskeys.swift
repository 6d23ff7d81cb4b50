import Foundation

/// The account's passkeys at the account page: renamed freely, removed after a recent sign-in (never the last way
/// in), the owner told.
extension SelfService {
    public func renamePasskey(_ holder: AccountHolder, id: String, name raw: String?, caller: CallerInfo) async throws {
        let name = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 64, !name.contains(where: \.isNewline) else { throw AccountPageRefusal.badName }
        try await transaction { tx in
            guard try await tx.passkeys.renamePasskey(id: id, userId: holder.user.id, name: name) else { throw AccountPageRefusal.notFound }
            try await self.audit(tx, "passkey_renamed", caller: .selfService(caller), userId: holder.user.id, email: holder.user.email, detail: name)
        }
    }

    /// Clears a clone flag on the owner's own passkey ("it was me"): as adding it again, it needs the assurance rule.
    public func clearPasskeyFlag(_ holder: AccountHolder, id: String, caller: CallerInfo) async throws {
        try await requireAssurance(.add(.passkey), holder)
        try await transaction { tx in
            guard try await tx.passkeys.clearCloneFlag(id: id, userId: holder.user.id) else { throw AccountPageRefusal.notFound }
            try await self.audit(tx, "passkey_flag_cleared", caller: .selfService(caller), userId: holder.user.id, email: holder.user.email, detail: id)
        }
    }

    public func removePasskey(_ holder: AccountHolder, id: String, caller: CallerInfo) async throws {
        try await requireAssurance(.remove(.passkey), holder)
        try await transaction { tx in
            let user = try await self.current(holder, in: tx)
            guard let passkey = try await tx.passkeys.passkeys(userId: user.id).first(where: { $0.id == id }) else { throw AccountPageRefusal.notFound }
            try await self.engine.accounts.requireAnotherWayIn(user, removing: .passkey(id), in: tx)
            _ = try await tx.passkeys.deletePasskey(id: id, userId: user.id)
            try await self.audit(tx, "passkey_removed", caller: .selfService(caller), userId: user.id, email: user.email, detail: passkey.name)
            try await self.engine.mailOwner(.passkeyRemoved, user, what: passkey.name, caller: caller, in: tx)
        }
    }
}
