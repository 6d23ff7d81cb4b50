import Foundation

/// The operator's view of a user's passkeys: listed with what is known of them (backup state, a clone flag), and
/// removed; never the account's last way in.
extension OperatorService {
    public func adminPasskeys(_ key: String) async throws -> [PasskeyRecord] {
        try await reader.passkeys.passkeys(userId: try await adminFindUser(key).id)
    }

    /// Clears a clone flag once the operator has checked with the owner: the passkey signs in again.
    public func adminClearPasskeyFlag(_ key: String, id: String, caller: CallerInfo) async throws {
        let user = try await adminFindUser(key)
        try await transaction { tx in
            guard try await tx.passkeys.clearCloneFlag(id: id, userId: user.id) else { throw AdminError.passkeyNotFound }
            try await self.audit(tx, "admin.passkey_flag_cleared", caller: caller, userId: user.id, email: user.email, detail: id)
        }
    }

    public func adminRemovePasskey(_ key: String, id: String, caller: CallerInfo) async throws {
        let found = try await adminFindUser(key)
        try await transaction { tx in
            guard let user = try await tx.users.find(id: found.id) else { throw AdminError.userNotFound }
            let passkeys = try await tx.passkeys.passkeys(userId: user.id)
            guard let passkey = passkeys.first(where: { $0.id == id }) else { throw AdminError.passkeyNotFound }
            try await self.engine.accounts.requireAnotherWayIn(user, removing: .passkey(passkey.id), in: tx)
            _ = try await tx.passkeys.deletePasskey(id: passkey.id, userId: user.id)
            try await self.audit(tx, "admin.passkey_removed", caller: caller, userId: user.id, email: user.email, detail: passkey.name)
            try await self.engine.mailOwner(.passkeyRemoved, user, what: passkey.name, caller: caller, in: tx)
        }
    }
}
